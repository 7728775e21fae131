//! AWS credentials and the Signature Version 4 of a request, as Amazon Bedrock takes them.
//!
//! - **Signing** is `aws-sigv4`'s (the AWS SDK's own signer): the canonical request of the
//!   method, the URL's path and query, the `host`, `content-type` and `x-amz-date` headers (and
//!   `x-amz-security-token` with temporary credentials) and the body's SHA-256, signed with a key
//!   derived from the secret key, the date, the region and the service (`bedrock`). The signature
//!   goes in `authorization`; each added header is marked sensitive. Checked against AWS's
//!   published test vectors (the `aws-signing-test-suite` that `aws-sigv4` carries) in the tests
//!   below. A signature is valid for 5 minutes, longer than the transport's retries of one
//!   request take (each retry within `max_retry_after`); a new request is signed again.
//! - **Credentials** are `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` when
//!   set (or those given to `BedrockProvider::with_credentials`), else `aws-config`'s default
//!   chain: the environment, the shared `config` and `credentials` files (`AWS_PROFILE`), SSO,
//!   web identity, the ECS container endpoint and the EC2 instance metadata service. The chain is
//!   built on the first request (it reads files and may ask a metadata service), with its own
//!   HTTP client on rustls and ring. Temporary credentials are kept until 5 minutes before they
//!   expire, then asked for again. They never show in `Debug`, a log or an error; the chain's
//!   failure is an error naming where it looked.

use std::fmt;
use std::time::{Duration, SystemTime};

use aws_credential_types::provider::ProvideCredentials;
use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    sign, PayloadChecksumKind, SignableBody, SignableRequest, SigningSettings,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use reqwest::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use tokio::sync::{Mutex, OnceCell};

use crate::provider::http::{key_header_value, Outgoing};
use crate::provider::transport::error_chain;
use crate::provider::{ProviderError, ProviderErrorKind};

/// Bedrock's signing name.
pub(crate) const SERVICE: &str = "bedrock";
/// Temporary credentials are asked for again this long before they expire.
const REFRESH_EARLY: Duration = Duration::from_secs(5 * 60);

/// Where a provider's AWS credentials come from.
pub(crate) struct AwsCredentials {
    fixed: Option<Credentials>,
    chain: OnceCell<aws_credential_types::provider::SharedCredentialsProvider>,
    region: String,
    cached: Mutex<Option<Credentials>>,
}

impl fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = if self.fixed.is_some() {
            "given keys"
        } else {
            "the default chain"
        };
        f.debug_struct("AwsCredentials")
            .field("source", &source)
            .field("keys", &"[redacted]")
            .finish()
    }
}

impl AwsCredentials {
    /// The keys given, when `fixed` holds them, else the default chain for `region`.
    pub(crate) fn new(fixed: Option<Credentials>, region: &str) -> Self {
        AwsCredentials {
            fixed,
            chain: OnceCell::new(),
            region: region.to_owned(),
            cached: Mutex::new(None),
        }
    }

    /// Keys from the variables `var` reads (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`), when both keys are set.
    pub(crate) fn keys_from(var: impl Fn(&str) -> Option<String>) -> Option<Credentials> {
        let id = var("AWS_ACCESS_KEY_ID")?;
        let secret = var("AWS_SECRET_ACCESS_KEY")?;
        Some(Credentials::new(
            id,
            secret,
            var("AWS_SESSION_TOKEN"),
            None,
            "environment",
        ))
    }

    /// Credentials valid for at least [`REFRESH_EARLY`] more.
    async fn current(&self) -> Result<Credentials, ProviderError> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let mut cached = self.cached.lock().await;
        let fresh = |c: &Credentials| {
            c.expiry()
                .is_none_or(|expiry| SystemTime::now() + REFRESH_EARLY < expiry)
        };
        if let Some(credentials) = cached.as_ref().filter(|c| fresh(c)) {
            return Ok(credentials.clone());
        }
        let chain = self
            .chain
            .get_or_init(|| async {
                let client = aws_smithy_http_client::Builder::new()
                    .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
                        aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
                    ))
                    .build_https();
                let config = aws_config::provider_config::ProviderConfig::default()
                    .with_http_client(client)
                    .with_region(Some(aws_config::Region::new(self.region.clone())));
                let chain =
                    aws_config::default_provider::credentials::DefaultCredentialsChain::builder()
                        .configure(config)
                        .build()
                        .await;
                aws_credential_types::provider::SharedCredentialsProvider::new(chain)
            })
            .await;
        let credentials = chain.provide_credentials().await.map_err(|e| {
            unauthorized(format!(
                "no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the default chain (the environment, the shared config and credentials files for AWS_PROFILE or `default`, SSO, web identity, the ECS container endpoint, the EC2 instance metadata service) gave none: {}",
                error_chain(&e)
            ))
        })?;
        *cached = Some(credentials.clone());
        Ok(credentials)
    }

    /// Signs the POST `request` for Bedrock in `region`, adding the signature's headers to its
    /// headers.
    pub(crate) async fn sign_post(&self, request: Outgoing<'_>) -> Result<(), ProviderError> {
        let Outgoing { url, body, headers } = request;
        let credentials = self.current().await?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let signed = signature(
            &Signing {
                credentials: &credentials,
                region: &self.region,
                service: SERVICE,
                time: SystemTime::now(),
                body_digest_header: false,
            },
            "POST",
            url.as_str(),
            &[("content-type", "application/json")],
            body,
        )
        .map_err(|e| ProviderError::new(ProviderErrorKind::Config, e))?;
        for (name, value) in signed {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| ProviderError::new(ProviderErrorKind::Config, e.to_string()))?;
            let value = key_header_value(&value, "bedrock")?;
            headers.insert(name, value);
        }
        Ok(())
    }
}

/// What one signature is made with.
pub(crate) struct Signing<'a> {
    pub(crate) credentials: &'a Credentials,
    pub(crate) region: &'a str,
    pub(crate) service: &'a str,
    pub(crate) time: SystemTime,
    /// Adds `x-amz-content-sha256` (as S3 wants; Bedrock does not).
    pub(crate) body_digest_header: bool,
}

/// The headers that sign a request of `method` to `url` (already percent-encoded) with
/// `headers` and `body`: `x-amz-date`, `authorization` and, with temporary credentials,
/// `x-amz-security-token`.
pub(crate) fn signature(
    signing: &Signing<'_>,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Vec<(String, String)>, String> {
    let identity: Identity = signing.credentials.clone().into();
    let mut settings = SigningSettings::default();
    if signing.body_digest_header {
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    }
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(signing.region)
        .name(signing.service)
        .time(signing.time)
        .settings(settings)
        .build()
        .map_err(|e| format!("the request could not be signed: {e}"))?
        .into();
    let request = SignableRequest::new(
        method,
        url,
        headers.iter().copied(),
        SignableBody::Bytes(body),
    )
    .map_err(|e| format!("the request could not be signed: {e}"))?;
    let (instructions, _) = sign(request, &params)
        .map_err(|e| format!("the request could not be signed: {e}"))?
        .into_parts();
    Ok(instructions
        .headers()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect())
}

fn unauthorized(message: String) -> ProviderError {
    ProviderError::new(ProviderErrorKind::Auth, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test suite's keys and time (`aws-signing-test-suite/v4/*/context.json` in
    /// smithy-lang/smithy-rs, `aws/rust-runtime/aws-sigv4`, from AWS's published SigV4 suite).
    fn suite(body_digest_header: bool, check: impl FnOnce(&Signing<'_>)) {
        let credentials = Credentials::new(
            "AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            None,
            None,
            "test suite",
        );
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_440_938_160); // 2015-08-30T12:36:00Z
        check(&Signing {
            credentials: &credentials,
            region: "us-east-1",
            service: "service",
            time,
            body_digest_header,
        });
    }

    /// The headers that sign the suite's POST to `https://example.amazonaws.com/` with `headers`
    /// and `body`.
    fn signed_post(
        signing: &Signing<'_>,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Vec<(String, String)> {
        signature(
            signing,
            "POST",
            "https://example.amazonaws.com/",
            headers,
            body,
        )
        .unwrap()
    }

    fn header<'h>(signed: &'h [(String, String)], name: &str) -> &'h str {
        signed
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} in {signed:?}"))
    }

    #[test]
    fn posts_sign_as_the_published_vectors() {
        // Each vector: whether it adds `x-amz-content-sha256`, the request's headers and body,
        // and the published headers that sign it.
        type Vector<'v> = (
            bool,
            &'v [(&'v str, &'v str)],
            &'v [u8],
            [(&'v str, &'v str); 2],
        );
        let vectors: [Vector<'_>; 2] = [
            // v4/post-vanilla/header-signed-request.txt
            (
                false,
                &[("host", "example.amazonaws.com")],
                b"",
                [
                    ("x-amz-date", "20150830T123600Z"),
                    ("authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
                ],
            ),
            // v4/post-x-www-form-urlencoded/header-signed-request.txt
            (
                true,
                &[
                    ("content-type", "application/x-www-form-urlencoded"),
                    ("host", "example.amazonaws.com"),
                    ("content-length", "13"),
                ],
                b"Param1=value1",
                [
                    ("x-amz-content-sha256", "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"),
                    ("authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date, Signature=d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"),
                ],
            ),
        ];
        for (body_digest_header, headers, body, published) in vectors {
            suite(body_digest_header, |signing| {
                let signed = signed_post(signing, headers, body);
                for (name, value) in published {
                    assert_eq!(header(&signed, name), value, "{name}");
                }
            });
        }
    }

    #[test]
    fn a_changed_body_changes_the_signature() {
        suite(false, |signing| {
            let sign =
                |body: &[u8]| header(&signed_post(signing, &[], body), "authorization").to_owned();
            assert_ne!(sign(b"{}"), sign(b"{ }"));
        });
    }

    #[test]
    fn temporary_credentials_add_their_token() {
        let credentials =
            Credentials::new("AKID", "secret", Some("session-token".into()), None, "t");
        let signing = Signing {
            credentials: &credentials,
            region: "us-west-2",
            service: SERVICE,
            time: SystemTime::now(),
            body_digest_header: false,
        };
        let signed = signature(
            &signing,
            "POST",
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/m/converse",
            &[],
            b"{}",
        )
        .unwrap();
        assert_eq!(header(&signed, "x-amz-security-token"), "session-token");
        assert!(header(&signed, "authorization").contains("/us-west-2/bedrock/aws4_request"));
        assert!(
            !format!("{:?}", AwsCredentials::new(Some(credentials), "us-west-2"))
                .contains("secret")
        );
    }

    #[tokio::test]
    async fn no_credentials_anywhere_is_an_error_naming_where_the_chain_looked() {
        // Nothing in the environment, no files, and the instance metadata service off: the chain
        // asks no server (only this test sets AWS variables in this process).
        for name in [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_PROFILE",
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        ] {
            std::env::remove_var(name);
        }
        std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
        std::env::set_var("AWS_CONFIG_FILE", "/nonexistent/aws/config");
        std::env::set_var(
            "AWS_SHARED_CREDENTIALS_FILE",
            "/nonexistent/aws/credentials",
        );
        let error = AwsCredentials::new(None, "us-east-1")
            .current()
            .await
            .unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Auth);
        for place in [
            "AWS_ACCESS_KEY_ID",
            "shared config and credentials files",
            "SSO",
            "instance metadata",
        ] {
            assert!(error.message.contains(place), "{place}: {}", error.message);
        }
    }
}
