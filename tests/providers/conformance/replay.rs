//! A replay server on 127.0.0.1: it answers each request with a recording, written in the pieces
//! a test chooses (whole, cut at given offsets, one byte at a time, or held open part way), after
//! checking that the request is one the recording answers (its path, and whether it asks for a
//! stream). A request the real API would not have answered with the recording gets a 400 naming
//! what is wrong, so a provider that does not stream, or asks the wrong endpoint, fails with that
//! reason rather than by misreading the bytes.
//!
//! Hand-written on tokio rather than wiremock because wiremock sends a body whole, and the point
//! here is how the client reads a stream that arrives in arbitrary pieces.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request target: path and query.
    pub target: String,
    /// The body, as text.
    pub body: String,
    /// The headers, names in lowercase, in order (read by the clouds' tests).
    #[cfg_attr(not(any(feature = "bedrock", feature = "vertex")), allow(dead_code))]
    pub headers: Vec<(String, String)>,
}

impl Received {
    /// The first value of the header `name` (lowercase).
    #[cfg_attr(not(any(feature = "bedrock", feature = "vertex")), allow(dead_code))]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How a body is written.
#[derive(Debug, Clone)]
pub enum Delivery {
    /// In one piece.
    Whole,
    /// Cut at these byte offsets (ascending), each piece its own chunk, flushed on its own.
    Cuts(Vec<usize>),
    /// The first `n` bytes, then the connection held open without another byte until the client
    /// closes it.
    HoldAfter(usize),
}

/// An answer: a status, a content type, a body and how it is written.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Arc<Vec<u8>>,
    pub delivery: Delivery,
}

impl Answer {
    /// A 400 whose body says, in the error shape every provider reads, why the request is not one
    /// the recording answers.
    pub fn refusal(why: String) -> Answer {
        let body = json!({"error": {"message": format!("replay server: {why}"), "type": "replay_mismatch"}});
        Answer {
            status: 400,
            content_type: "application/json",
            body: Arc::new(body.to_string().into_bytes()),
            delivery: Delivery::Whole,
        }
    }
}

/// What answers the `n`th request (from 0).
type Route = dyn Fn(usize, &Received) -> Answer + Send + Sync;

/// A running replay server.
pub struct ReplayServer {
    pub base: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl ReplayServer {
    /// Starts a server whose `route` answers each request.
    pub async fn start(route: impl Fn(usize, &Received) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let route: Arc<Route> = Arc::new(route);
        let log = received.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(connection(socket, route.clone(), log.clone()));
            }
        });
        ReplayServer { base, received }
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// Serves the requests of one connection until it closes.
async fn connection(socket: TcpStream, route: Arc<Route>, log: Arc<Mutex<Vec<Received>>>) {
    socket.set_nodelay(true).unwrap();
    let (read, mut write) = socket.into_split();
    let mut read = BufReader::new(read);
    while let Some(request) = request(&mut read).await {
        let answer = {
            let mut log = log.lock().unwrap();
            log.push(request.clone());
            route(log.len() - 1, &request)
        };
        if answer_with(&mut write, &mut read, answer).await.is_err() {
            return;
        }
    }
}

/// Writes `answer`; an error when the connection closed or is to be closed.
async fn answer_with(
    write: &mut OwnedWriteHalf,
    read: &mut BufReader<OwnedReadHalf>,
    answer: Answer,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {} Replay\r\ncontent-type: {}\r\ntransfer-encoding: chunked\r\n\r\n",
        answer.status, answer.content_type
    );
    write.write_all(head.as_bytes()).await?;
    let body = &answer.body[..];
    match answer.delivery {
        Delivery::Whole => chunk(write, body).await?,
        Delivery::Cuts(cuts) => {
            let mut start = 0;
            for end in cuts.into_iter().chain([body.len()]) {
                let end = end.min(body.len());
                if end > start {
                    chunk(write, &body[start..end]).await?;
                    start = end;
                }
            }
        }
        Delivery::HoldAfter(n) => {
            chunk(write, &body[..n.min(body.len())]).await?;
            let mut buffer = [0u8; 256];
            while matches!(read.read(&mut buffer).await, Ok(n) if n > 0) {}
            return Err(std::io::ErrorKind::ConnectionAborted.into());
        }
    }
    write.write_all(b"0\r\n\r\n").await?;
    write.flush().await
}

/// Writes `bytes` as one chunk of the chunked encoding, flushed.
async fn chunk(write: &mut OwnedWriteHalf, bytes: &[u8]) -> std::io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let mut framed = Vec::with_capacity(bytes.len() + 12);
    framed.extend_from_slice(format!("{:x}\r\n", bytes.len()).as_bytes());
    framed.extend_from_slice(bytes);
    framed.extend_from_slice(b"\r\n");
    write.write_all(&framed).await?;
    write.flush().await
}

/// The next request of a connection; `None` when it closed.
async fn request(read: &mut BufReader<OwnedReadHalf>) -> Option<Received> {
    let mut line = String::new();
    if read.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let target = line.split_whitespace().nth(1)?.to_owned();
    let mut length = 0usize;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if read.read_line(&mut header).await.ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut body = vec![0u8; length];
    read.read_exact(&mut body).await.ok()?;
    Some(Received {
        target,
        body: String::from_utf8_lossy(&body).into_owned(),
        headers,
    })
}
