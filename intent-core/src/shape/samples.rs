//! The samples a member's description names (`/// The product code, such as A-1192.`): the
//! words after `such as`, `e.g.`, `for example` and `for instance` (a quoted text, or one word;
//! more words joined by `or` or a comma when they hold a digit or are quoted), and every
//! backticked word. Read once per type, when its sampled members are first asked for
//! ([`TypeInfo::sampled_members`](super::TypeInfo::sampled_members)); the policy that questions
//! an answer giving one is the trust layer's.

/// Where a sample starts, lower case.
const MARKERS: [&str; 4] = ["such as", "e.g.", "for example", "for instance"];

/// The samples a description names, in order, each once.
pub(crate) fn samples_in(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |sample: &str| {
        let sample = sample.trim();
        if !sample.is_empty()
            && sample.chars().any(char::is_alphanumeric)
            && sample.chars().count() <= 80
            && !out.iter().any(|s| s == sample)
        {
            out.push(sample.to_owned());
        }
    };
    let lower = doc.to_lowercase();
    // Lower-casing keeps byte offsets only for text whose case change keeps lengths; otherwise
    // only the backticked samples are read.
    if lower.len() == doc.len() {
        for marker in MARKERS {
            for (at, _) in lower.match_indices(marker) {
                let before = lower[..at].chars().next_back();
                if before.is_some_and(char::is_alphanumeric) {
                    continue;
                }
                let mut rest = &doc[at + marker.len()..];
                loop {
                    rest = rest.trim_start_matches([' ', ',', ':', '\t', '\n']);
                    let Some((sample, after, quoted)) = one_sample(rest) else {
                        break;
                    };
                    push(sample);
                    // More samples: ", B-7" or " or B-7", when they look like values.
                    let next = after
                        .strip_prefix(", or ")
                        .or_else(|| after.strip_prefix(" or "))
                        .or_else(|| after.strip_prefix(", "));
                    match next {
                        Some(next) => {
                            let looks = match one_sample(next) {
                                Some((s, _, q)) => q || s.chars().any(|c| c.is_ascii_digit()),
                                None => false,
                            };
                            if !looks || !(quoted || sample.chars().any(|c| c.is_ascii_digit())) {
                                break;
                            }
                            rest = next;
                        }
                        None => break,
                    }
                }
            }
        }
    }
    let mut rest = doc;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        push(&after[..close]);
        rest = &after[close + 1..];
    }
    out
}

/// The sample at the start of `text`: a quoted text, or one word without the punctuation that
/// ends it; with the text after it and whether it was quoted.
fn one_sample(text: &str) -> Option<(&str, &str, bool)> {
    let first = text.chars().next()?;
    let close = match first {
        '"' => Some('"'),
        '\'' => Some('\''),
        '`' => Some('`'),
        '“' => Some('”'),
        '‘' => Some('’'),
        _ => None,
    };
    if let Some(close) = close {
        let body = &text[first.len_utf8()..];
        let end = body.find(close)?;
        return Some((&body[..end], &body[end + close.len_utf8()..], true));
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    let word = text[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
    let word = word.trim_start_matches(['(', '[']);
    if word.is_empty() {
        return None;
    }
    // The rest starts where the word ends, its trailing punctuation included.
    let consumed = text[..end].rfind(word).map_or(end, |at| at + word.len());
    Some((word, &text[consumed..], false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_read_after_their_markers_and_in_backticks() {
        assert_eq!(samples_in("The product code, such as A-1192."), ["A-1192"]);
        assert_eq!(
            samples_in("A code such as A-1192 or B-7, in capitals."),
            ["A-1192", "B-7"]
        );
        assert_eq!(
            samples_in("The sender (e.g. \"Sam (Contoso)\") as written."),
            ["Sam (Contoso)"]
        );
        assert_eq!(samples_in("For example: 40."), ["40"]);
        assert_eq!(
            samples_in("The status, `open` or `closed`."),
            ["open", "closed"]
        );
        assert_eq!(
            samples_in("A city such as Paris, London or Rome."),
            ["Paris"]
        );
        assert!(samples_in("A plain description.").is_empty());
        // A marker inside a word is no marker.
        assert!(samples_in("Pseudosuch as").is_empty());
    }
}
