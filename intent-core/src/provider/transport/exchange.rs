//! Requests besides a model call's JSON POST, as the batch APIs need them: GETs, bodies of any
//! type (a multipart file upload), requests that must not be sent twice, and replies read as JSON
//! Lines one line at a time. They go through the provider's one HTTP client, under its retry
//! policy, timeouts and limits, with the key redacted from every message and line, exactly as a
//! model call does.
//!
//! The multipart body of a file upload is written here by hand: it has one text field and one file
//! part, and a body held as bytes can be sent again on a retry, which reqwest's streamed multipart
//! forms cannot.

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::Method;

use super::{display_url, ApiKey, Fault, Parts, Post, Receive, Transport};
use crate::provider::error::{ProviderError, ProviderErrorKind};

/// One request of a batch API.
pub(crate) struct Exchange<'a> {
    /// The provider's name, for errors and logs.
    pub(crate) provider: &'a str,
    /// GET, POST, ...
    pub(crate) method: Method,
    /// The endpoint.
    pub(crate) url: reqwest::Url,
    /// Authentication and version headers.
    pub(crate) headers: HeaderMap,
    /// The body and its content type, when the request has one.
    pub(crate) body: Option<(HeaderValue, Vec<u8>)>,
    /// The key, redacted from any message.
    pub(crate) key: &'a ApiKey,
    /// False for a request that must not reach the server twice (creating a batch, which is paid
    /// for): a fault is returned at once, for the caller to find out what the server did.
    pub(crate) retry: bool,
}

impl Transport {
    /// Sends `exchange` and returns the body of its successful (2xx) reply, read whole within
    /// `max_response_bytes`.
    pub(crate) async fn batch_request(
        &self,
        exchange: Exchange<'_>,
    ) -> Result<Vec<u8>, ProviderError> {
        self.send_exchange(exchange, WholeBody).await
    }

    /// Sends `exchange` and reads its reply as JSON Lines: `parse` turns each non-blank line (the
    /// key redacted, without its line end) into a `T` as it arrives, so only the parsed lines are
    /// held. The body may be up to `limit` bytes. A fault while reading starts the download again.
    pub(crate) async fn exchange_lines<T: Send>(
        &self,
        exchange: Exchange<'_>,
        limit: usize,
        parse: &(dyn Fn(&[u8]) -> T + Sync),
    ) -> Result<Vec<T>, ProviderError> {
        self.send_exchange(exchange, Lines { parse, limit }).await
    }

    async fn send_exchange<R: Receive>(
        &self,
        exchange: Exchange<'_>,
        receive: R,
    ) -> Result<R::Output, ProviderError> {
        let Exchange {
            provider,
            method,
            url,
            headers,
            body,
            key,
            retry,
        } = exchange;
        let no_headers = HeaderMap::new();
        let post = Post {
            provider,
            url: std::borrow::Cow::Borrowed(&url),
            headers: std::borrow::Cow::Borrowed(&no_headers),
            body: Vec::new(),
            key,
        };
        let client = self.http_client(&post)?;
        let (content_type, body) = body.map_or((None, None), |(content_type, body)| {
            (Some(content_type), Some(Bytes::from(body)))
        });
        let parts = Parts {
            method,
            url: &url,
            headers: &headers,
            content_type,
            body,
        };
        let retries = if retry { self.retry.max_retries } else { 0 };
        self.retrying(client, &parts, &post, receive, retries).await
    }
}

/// A multipart/form-data body with the text fields `fields` and one file part `file` named
/// `filename`: its content type (with the boundary) and its bytes.
pub(crate) fn multipart_file(
    fields: &[(&str, &str)],
    file_field: &str,
    filename: &str,
    file_type: &str,
    file: &[u8],
) -> (HeaderValue, Vec<u8>) {
    // A boundary that occurs nowhere in the content.
    let boundary = loop {
        let candidate = format!("intent-boundary-{:016x}", fastrand::u64(..));
        if !contains(file, candidate.as_bytes())
            && fields.iter().all(|(_, v)| !v.contains(&candidate))
        {
            break candidate;
        }
    };
    let mut body = Vec::with_capacity(file.len() + 512);
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{file_field}\"; filename=\"{filename}\"\r\nContent-Type: {file_type}\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let content_type = HeaderValue::from_str(&format!("multipart/form-data; boundary={boundary}"))
        .unwrap_or_else(|_| HeaderValue::from_static("multipart/form-data"));
    (content_type, body)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The whole reply body, up to `max_response_bytes`.
struct WholeBody;

impl Receive for WholeBody {
    type Output = Vec<u8>;

    async fn receive<'a>(
        &'a self,
        transport: &'a Transport,
        response: reqwest::Response,
        post: &'a Post<'_>,
    ) -> Result<Vec<u8>, Fault> {
        transport.read_body(response, post).await
    }
}

/// The reply's JSON Lines, each parsed as it arrives.
struct Lines<'p, T> {
    parse: &'p (dyn Fn(&[u8]) -> T + Sync),
    limit: usize,
}

impl<T: Send> Receive for Lines<'_, T> {
    type Output = Vec<T>;

    async fn receive<'a>(
        &'a self,
        transport: &'a Transport,
        mut response: reqwest::Response,
        post: &'a Post<'_>,
    ) -> Result<Vec<T>, Fault> {
        let mut parsed = Vec::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut read = 0usize;
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => {
                    return Err(transport.transport_fault(e, post, "reading the results from"))
                }
            };
            read += chunk.len();
            if read > self.limit {
                return Err(Fault {
                    error: ProviderError::new(
                        ProviderErrorKind::Decode,
                        format!(
                            "the results at {} are larger than the limit of {} bytes; they were not read",
                            display_url(post.url.as_str()),
                            self.limit
                        ),
                    )
                    .with_provider(post.provider),
                    retryable: false,
                    server_delay: None,
                });
            }
            let mut rest: &[u8] = &chunk;
            while let Some(end) = rest.iter().position(|&b| b == b'\n') {
                if pending.is_empty() {
                    self.line(&rest[..end], post.key, &mut parsed);
                } else {
                    pending.extend_from_slice(&rest[..end]);
                    self.line(&pending, post.key, &mut parsed);
                    pending.clear();
                }
                rest = &rest[end + 1..];
            }
            pending.extend_from_slice(rest);
        }
        self.line(&pending, post.key, &mut parsed);
        Ok(parsed)
    }
}

impl<T> Lines<'_, T> {
    fn line(&self, line: &[u8], key: &ApiKey, parsed: &mut Vec<T>) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        parsed.push((self.parse)(&key.redact_bytes(line)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multipart_body_has_its_fields_and_file_between_boundaries() {
        let (content_type, body) = multipart_file(
            &[("purpose", "batch")],
            "file",
            "batch.jsonl",
            "application/jsonl",
            b"{\"a\":1}\n",
        );
        let content_type = content_type.to_str().unwrap();
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        let body = String::from_utf8(body).unwrap();
        assert!(body.starts_with(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
        )));
        assert!(body.contains(
            "filename=\"batch.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n{\"a\":1}\n\r\n"
        ));
        assert!(body.ends_with(&format!("--{boundary}--\r\n")));
    }
}
