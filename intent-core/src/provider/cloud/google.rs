//! Google OAuth2 access tokens from Application Default Credentials, as Vertex AI takes them
//! (`authorization: Bearer {token}`), looked for in this order:
//!
//! 1. the file `GOOGLE_APPLICATION_CREDENTIALS` names (a service account key), read by
//!    [`gcp_auth`]'s `CustomServiceAccount`, which signs its JWT and exchanges it at the key's
//!    `token_uri`;
//! 2. gcloud's own file (`gcloud auth application-default login`:
//!    `$CLOUDSDK_CONFIG/application_default_credentials.json`, else
//!    `~/.config/gcloud/application_default_credentials.json`), read by `gcp_auth`'s
//!    `ConfigDefaultCredentials`, which refreshes the user's token;
//! 3. the metadata server of the machine (Compute Engine, Cloud Run, GKE):
//!    `GET http://{host}/computeMetadata/v1/instance/service-accounts/default/token` with
//!    `Metadata-Flavor: Google`, replying `{"access_token", "expires_in", "token_type"}`
//!    (Google's "About VM metadata" and "Authenticate workloads using service accounts" pages).
//!    `{host}` is `GCE_METADATA_HOST` when set (as Google's own client libraries read it), else
//!    `metadata.google.internal`.
//!
//! The metadata server is asked here, not through `gcp_auth`: `gcp_auth` names
//! `metadata.google.internal` in its code and reads no `GCE_METADATA_HOST`, so it could not be
//! pointed at another host (an emulator, a test's server on 127.0.0.1). The request is one GET
//! of a small JSON reply with the provider's own HTTP stack, bounded in time and size.
//!
//! Tokens are kept until 60 seconds before they expire, then fetched again on the next request
//! (`gcp_auth` refreshes its own 20 seconds early); one fetch at a time. A token never shows in
//! `Debug`, and no error carries it. When none of the three gives a token, the error names each
//! place looked and why it gave none.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::{Mutex, OnceCell};

use crate::provider::{ProviderError, ProviderErrorKind};

/// The scope Vertex AI takes.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// The metadata server's usual host.
const METADATA_HOST: &str = "metadata.google.internal";
/// The token's path on the metadata server.
const METADATA_TOKEN_PATH: &str = "/computeMetadata/v1/instance/service-accounts/default/token";
/// A token is fetched again this long before it expires.
const REFRESH_EARLY: Duration = Duration::from_secs(60);
/// The longest wait for the metadata server.
const METADATA_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest metadata reply read.
const METADATA_MAX_BYTES: usize = 64 * 1024;

/// Where tokens come from: read from the environment once, found on first use.
pub(crate) struct GoogleAuth {
    /// `GOOGLE_APPLICATION_CREDENTIALS`, when set.
    key_file: Option<PathBuf>,
    /// gcloud's application default credentials file.
    gcloud_file: Option<PathBuf>,
    /// The metadata server's host (and port).
    metadata_host: String,
    /// The source found on first use.
    source: OnceCell<Source>,
    /// The metadata server's token, until it is due for refresh.
    cached: Mutex<Option<Cached>>,
}

enum Source {
    Gcp(Arc<dyn gcp_auth::TokenProvider>),
    Metadata(reqwest::Client),
}

struct Cached {
    token: String,
    refresh_at: Instant,
}

impl fmt::Debug for GoogleAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GoogleAuth")
            .field("key_file", &self.key_file)
            .field("metadata_host", &self.metadata_host)
            .field("token", &"[redacted]")
            .finish_non_exhaustive()
    }
}

impl GoogleAuth {
    /// The credentials the variables `var` reads point at (see the module docs).
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let gcloud_dir = var("CLOUDSDK_CONFIG")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config/gcloud")));
        GoogleAuth {
            key_file: var("GOOGLE_APPLICATION_CREDENTIALS").map(PathBuf::from),
            gcloud_file: gcloud_dir.map(|dir| dir.join("application_default_credentials.json")),
            metadata_host: var("GCE_METADATA_HOST").unwrap_or_else(|| METADATA_HOST.to_owned()),
            source: OnceCell::new(),
            cached: Mutex::new(None),
        }
    }

    /// A valid access token, fetched when there is none or it is about to expire.
    pub(crate) async fn token(&self) -> Result<String, ProviderError> {
        let source = self.source.get_or_try_init(|| self.find()).await?;
        match source {
            Source::Gcp(provider) => provider
                .token(&[SCOPE])
                .await
                .map(|token| token.as_str().to_owned())
                .map_err(|e| unauthorized(format!("no Google access token could be had: {e}"))),
            Source::Metadata(client) => {
                let mut cached = self.cached.lock().await;
                if let Some(token) = cached.as_ref().filter(|c| Instant::now() < c.refresh_at) {
                    return Ok(token.token.clone());
                }
                let (token, expires_in) = self.metadata_token(client).await.map_err(|e| {
                    unauthorized(format!(
                        "no Google credentials: {}; the metadata server at {} gave no token: {e}",
                        self.files_looked(),
                        self.metadata_host
                    ))
                })?;
                let refresh_at = Instant::now() + expires_in.saturating_sub(REFRESH_EARLY);
                *cached = Some(Cached {
                    token: token.clone(),
                    refresh_at,
                });
                Ok(token)
            }
        }
    }

    /// The first source that is there: a key file, gcloud's file, else the metadata server.
    async fn find(&self) -> Result<Source, ProviderError> {
        if let Some(path) = &self.key_file {
            return gcp_auth::CustomServiceAccount::from_file(path)
                .map(|account| Source::Gcp(Arc::new(account)))
                .map_err(|e| {
                    unauthorized(format!(
                        "GOOGLE_APPLICATION_CREDENTIALS names {}, which is not a service account key Google's auth reads: {e}",
                        path.display()
                    ))
                });
        }
        if self.gcloud_file.as_ref().is_some_and(|f| f.is_file()) {
            return gcp_auth::ConfigDefaultCredentials::new()
                .await
                .map(|credentials| Source::Gcp(Arc::new(credentials)))
                .map_err(|e| {
                    unauthorized(format!(
                        "gcloud's application default credentials gave no token: {e}"
                    ))
                });
        }
        let client = reqwest::Client::builder()
            .timeout(METADATA_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| unauthorized(format!("the HTTP client could not be built: {e}")))?;
        Ok(Source::Metadata(client))
    }

    /// What was looked for in files, for the error when the metadata server gives nothing.
    fn files_looked(&self) -> String {
        let gcloud = self.gcloud_file.as_ref().map_or(
            "gcloud's file (no HOME or CLOUDSDK_CONFIG)".to_owned(),
            |f| format!("no file at {}", f.display()),
        );
        format!("GOOGLE_APPLICATION_CREDENTIALS is not set, {gcloud}")
    }

    /// The metadata server's token and how long it lasts.
    async fn metadata_token(&self, client: &reqwest::Client) -> Result<(String, Duration), String> {
        let url = format!("http://{}{METADATA_TOKEN_PATH}", self.metadata_host);
        let mut response = client
            .get(&url)
            .header("metadata-flavor", "Google")
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| e.without_url().to_string())?
        {
            if body.len() + chunk.len() > METADATA_MAX_BYTES {
                return Err(format!(
                    "its reply is larger than {METADATA_MAX_BYTES} bytes"
                ));
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            let text: String = text.chars().take(300).collect();
            return Err(format!("HTTP {}: {}", status.as_u16(), text.trim()));
        }
        #[derive(Deserialize)]
        struct Reply {
            access_token: String,
            expires_in: Option<u64>,
        }
        let reply: Reply = serde_json::from_slice(&body).map_err(|e| {
            format!("its reply is not the token JSON ({{\"access_token\", \"expires_in\"}}): {e}")
        })?;
        if reply.access_token.trim().is_empty() {
            return Err("its reply has an empty access_token".into());
        }
        // Without `expires_in`, the token is held for no more than a minute.
        let expires_in = Duration::from_secs(reply.expires_in.unwrap_or(120));
        Ok((reply.access_token, expires_in))
    }
}

/// An error of credentials: not retried, as a refused key is not.
fn unauthorized(message: String) -> ProviderError {
    ProviderError::new(ProviderErrorKind::Auth, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::http::vars;
    use wiremock::matchers::{header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    /// A metadata server answering every token request with `reply`.
    async fn metadata(reply: ResponseTemplate) -> MockServer {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path(METADATA_TOKEN_PATH))
            .and(header("metadata-flavor", "Google"))
            .respond_with(reply)
            .mount(&server)
            .await;
        server
    }

    /// Credentials with no file, and the metadata server of `server`.
    fn at(server: &MockServer) -> GoogleAuth {
        let host = server.address().to_string();
        GoogleAuth::from_vars(vars(&[
            ("GCE_METADATA_HOST", &host),
            ("CLOUDSDK_CONFIG", "/nonexistent"),
        ]))
    }

    #[tokio::test]
    async fn the_metadata_servers_token_is_kept_until_shortly_before_it_expires() {
        let server = metadata(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "access_token": "ya29.local", "expires_in": 61, "token_type": "Bearer"
        })))
        .await;
        let auth = at(&server);
        assert_eq!(auth.token().await.unwrap(), "ya29.local");
        assert_eq!(auth.token().await.unwrap(), "ya29.local");
        assert_eq!(server.received_requests().await.unwrap().len(), 1);
        // 61 s of life, refreshed 60 s early: due again after one second.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        assert_eq!(auth.token().await.unwrap(), "ya29.local");
        assert_eq!(server.received_requests().await.unwrap().len(), 2);
        assert!(!format!("{auth:?}").contains("ya29"));
    }

    #[tokio::test]
    async fn no_credentials_is_an_error_naming_each_place_looked() {
        let server = metadata(ResponseTemplate::new(404).set_body_string("not on GCE")).await;
        let error = at(&server).token().await.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Auth);
        let host = server.address().to_string();
        for place in [
            "GOOGLE_APPLICATION_CREDENTIALS is not set",
            "/nonexistent/application_default_credentials.json",
            &host,
            "HTTP 404",
        ] {
            assert!(error.message.contains(place), "{place}: {}", error.message);
        }
        let key_file = GoogleAuth::from_vars(vars(&[(
            "GOOGLE_APPLICATION_CREDENTIALS",
            "/nonexistent/key.json",
        )]));
        let error = key_file.token().await.unwrap_err();
        assert!(
            error.message.contains("/nonexistent/key.json"),
            "{}",
            error.message
        );
    }

    #[tokio::test]
    async fn a_reply_without_a_token_is_refused() {
        let blank = serde_json::json!({"access_token": " "});
        let server = metadata(ResponseTemplate::new(200).set_body_json(blank)).await;
        let error = at(&server).token().await.unwrap_err();
        assert!(
            error.message.contains("empty access_token"),
            "{}",
            error.message
        );
    }
}
