//! A small HTTP/1.1 server on 127.0.0.1 for streamed replies, where wiremock cannot go: bodies
//! written in chosen pieces (each its own chunk of the chunked encoding, so the client reads them
//! apart), drips, pauses, connections dropped mid-body or held open, and a record of every request,
//! connection and connection close the server saw.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// One thing the server does while answering.
#[derive(Clone)]
pub enum Step {
    /// Writes these bytes as one chunk.
    Chunk(Vec<u8>),
    /// Writes these bytes as `count` chunks, one after another.
    Repeat(Vec<u8>, usize),
    /// Waits.
    Sleep(Duration),
    /// Drops the connection at once, without ending the body.
    Drop,
    /// Holds the connection open without writing, until the client closes it.
    Hold,
}

/// A reply: a status, a content type and the steps that write its body. The body ends with the
/// chunked encoding's last chunk unless a step drops or holds the connection.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub steps: Vec<Step>,
}

impl Reply {
    /// A 200 event stream written in these pieces.
    pub fn events(pieces: impl IntoIterator<Item = Vec<u8>>) -> Self {
        Reply {
            status: 200,
            content_type: "text/event-stream",
            steps: pieces.into_iter().map(Step::Chunk).collect(),
        }
    }

    /// A 200 event stream whose body is `body` cut at `cuts` (byte offsets, ascending).
    pub fn cut(body: &[u8], cuts: &[usize]) -> Self {
        let mut pieces = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain([&body.len()]) {
            if cut > start {
                pieces.push(body[start..cut].to_vec());
                start = cut;
            }
        }
        Reply::events(pieces)
    }

    /// Cut lists that together cut `len` bytes at every position, each cutting at `per_reply`
    /// positions spread over the body (one boundary per event or so, so they do not interact).
    pub fn every_cut(len: usize, per_reply: usize) -> Vec<Vec<usize>> {
        let stride = len.div_ceil(per_reply).max(1);
        (0..stride)
            .map(|k| (k..=len).step_by(stride).collect())
            .collect()
    }

    /// The same reply with more steps after its own.
    pub fn then(mut self, steps: impl IntoIterator<Item = Step>) -> Self {
        self.steps.extend(steps);
        self
    }
}

/// What the server saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A connection was opened (its number, from 0).
    Connected(usize),
    /// A request came on a connection, with its body.
    Request { connection: usize, body: String },
    /// The client closed a connection, or it failed (a reset); the server noticed.
    Closed(usize),
}

/// A running server.
pub struct SseServer {
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    events: tokio::sync::Mutex<mpsc::UnboundedReceiver<Seen>>,
}

impl SseServer {
    /// Starts a server that answers request `n` (from 0, over all connections) with `reply(n)`.
    pub async fn start(reply: impl Fn(usize) -> Reply + Send + Sync + 'static) -> SseServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (sender, events) = mpsc::unbounded_channel();
        let reply = Arc::new(reply);
        let record = {
            let seen = seen.clone();
            move |event: Seen| {
                seen.lock().unwrap().push(event.clone());
                let _ = sender.send(event);
            }
        };
        let record = Arc::new(record);
        let requests = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        tokio::spawn(async move {
            let mut connection = 0;
            while let Ok((socket, _)) = listener.accept().await {
                let (reply, record, requests) = (reply.clone(), record.clone(), requests.clone());
                let number = connection;
                connection += 1;
                record(Seen::Connected(number));
                tokio::spawn(async move {
                    serve(socket, number, &*reply, &*record, &requests).await;
                    record(Seen::Closed(number));
                });
            }
        });
        SseServer {
            base,
            seen,
            events: tokio::sync::Mutex::new(events),
        }
    }

    /// Everything seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The request bodies seen so far.
    pub fn requests(&self) -> Vec<String> {
        self.seen()
            .into_iter()
            .filter_map(|s| match s {
                Seen::Request { body, .. } => Some(body),
                _ => None,
            })
            .collect()
    }

    /// The number of connections opened so far.
    pub fn connections(&self) -> usize {
        self.seen()
            .iter()
            .filter(|s| matches!(s, Seen::Connected(_)))
            .count()
    }

    /// Waits up to `limit` for the server to see `connection` closed; true when it did.
    pub async fn wait_closed(&self, connection: usize, limit: Duration) -> bool {
        if self.seen().contains(&Seen::Closed(connection)) {
            return true;
        }
        let mut events = self.events.lock().await;
        tokio::time::timeout(limit, async {
            while let Some(event) = events.recv().await {
                if event == Seen::Closed(connection) {
                    return;
                }
            }
        })
        .await
        .is_ok()
    }
}

/// Answers the requests of one connection until it closes or a reply drops it.
async fn serve(
    socket: TcpStream,
    connection: usize,
    reply: &(dyn Fn(usize) -> Reply + Send + Sync),
    record: &(dyn Fn(Seen) + Send + Sync),
    requests: &std::sync::atomic::AtomicUsize,
) {
    socket.set_nodelay(true).unwrap();
    let (read, mut write) = socket.into_split();
    let mut read = BufReader::new(read);
    loop {
        let Some(body) = read_request(&mut read).await else {
            return;
        };
        record(Seen::Request { connection, body });
        let n = requests.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let reply = reply(n);
        let head = format!(
            "HTTP/1.1 {} X\r\ncontent-type: {}\r\ntransfer-encoding: chunked\r\n\r\n",
            reply.status, reply.content_type
        );
        if write.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        for step in reply.steps {
            let written = match step {
                Step::Chunk(bytes) => write_chunk(&mut write, &bytes).await,
                Step::Repeat(bytes, count) => {
                    let mut result = Ok(());
                    for _ in 0..count {
                        result = write_chunk(&mut write, &bytes).await;
                        if result.is_err() {
                            break;
                        }
                    }
                    result
                }
                Step::Sleep(delay) => {
                    tokio::time::sleep(delay).await;
                    Ok(())
                }
                Step::Drop => return,
                Step::Hold => {
                    // Reads until the client closes the connection (EOF or reset).
                    let mut buffer = [0u8; 1024];
                    while matches!(read.read(&mut buffer).await, Ok(n) if n > 0) {}
                    return;
                }
            };
            if written.is_err() {
                return;
            }
        }
        if write.write_all(b"0\r\n\r\n").await.is_err() {
            return;
        }
    }
}

async fn write_chunk(write: &mut OwnedWriteHalf, bytes: &[u8]) -> std::io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    write
        .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
        .await?;
    write.write_all(bytes).await?;
    write.write_all(b"\r\n").await?;
    write.flush().await
}

/// One request's body; `None` when the connection closed.
async fn read_request(read: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> Option<String> {
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0u8; length];
    read.read_exact(&mut body).await.ok()?;
    Some(String::from_utf8_lossy(&body).into_owned())
}
