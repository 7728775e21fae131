//! What the prompt's `## Input (...)` section says of the attachments sent with it.

use super::Attachment;

/// Appends the list of attachments to the input section (nothing when there are none): each in
/// the order its content part is sent, with its media type and size (or URL) and file name, and,
/// for a collection's chunk, which element it belongs to (as the element's text refers to it).
///
/// ```text
/// Attachments, sent with this message in this order:
/// 1. image/png, 48213 bytes, "receipt.png"
/// 2. application/pdf at https://example.com/terms.pdf
/// ```
///
/// In a chunk:
///
/// ```text
/// Attachments, sent with this message in this order:
/// 1. attachment 1 of element 4: image/png, 48213 bytes
/// 2. attachment 1 of element 5: application/pdf, 90112 bytes
/// ```
pub(crate) fn describe_attachments(user: &mut String, attachments: &[Attachment]) {
    if attachments.is_empty() {
        return;
    }
    user.push_str("\n\nAttachments, sent with this message in this order:");
    for (i, attachment) in attachments.iter().enumerate() {
        user.push('\n');
        user.push_str(&(i + 1).to_string());
        user.push_str(". ");
        if let Some(origin) = attachment.origin() {
            user.push_str(&origin);
            user.push_str(": ");
        }
        user.push_str(&attachment.summary());
    }
}
