//! A minimal HTTP/1.1 server on 127.0.0.1 for the benchmarks.
//!
//! It runs on its own thread and runtime, so its cost is the same for every client measured against
//! it, and it does as little as it can: it reads the request body, optionally waits, and answers
//! with a body made by a [`Responder`] (a fixed body for the call-overhead benchmark).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// Makes the reply body for a request body.
pub type Responder = Arc<dyn Fn(&[u8]) -> Bytes + Send + Sync>;

/// A running server; it stops when dropped.
pub struct Server {
    addr: SocketAddr,
    last_request: Arc<Mutex<Option<Bytes>>>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// A server that answers every request with `body`, at once.
    pub fn fixed(body: impl Into<Bytes>) -> Server {
        let body = body.into();
        Server::start(Duration::ZERO, Arc::new(move |_| body.clone()))
    }

    /// A server that waits `delay` before answering each request with `respond(request body)`.
    ///
    /// # Panics
    ///
    /// When no port on 127.0.0.1 can be bound (the benchmarks cannot run then).
    pub fn start(delay: Duration, respond: Responder) -> Server {
        let std_listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
        std_listener
            .set_nonblocking(true)
            .expect("make the listener non-blocking");
        let addr = std_listener.local_addr().expect("the listener's address");
        let last_request = Arc::new(Mutex::new(None));
        let (shutdown, stopped) = oneshot::channel();
        let seen = Arc::clone(&last_request);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the server's runtime");
            runtime.block_on(serve(std_listener, delay, respond, seen, stopped));
        });
        Server {
            addr,
            last_request,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The body of the last request the server received.
    pub fn last_request(&self) -> Option<Bytes> {
        self.last_request
            .lock()
            .map(|last| last.clone())
            .unwrap_or(None)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(
    listener: std::net::TcpListener,
    delay: Duration,
    respond: Responder,
    last_request: Arc<Mutex<Option<Bytes>>>,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = TcpListener::from_std(listener).expect("a tokio listener");
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
            _ = &mut stopped => return,
        };
        let _ = stream.set_nodelay(true);
        let respond = Arc::clone(&respond);
        let last_request = Arc::clone(&last_request);
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let respond = Arc::clone(&respond);
                let last_request = Arc::clone(&last_request);
                async move {
                    let body = match request.into_body().collect().await {
                        Ok(collected) => collected.to_bytes(),
                        Err(_) => Bytes::new(),
                    };
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    let reply = respond(&body);
                    if let Ok(mut last) = last_request.lock() {
                        *last = Some(body);
                    }
                    let mut response = Response::new(Full::new(reply));
                    response
                        .headers_mut()
                        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                    Ok::<_, Infallible>(response)
                }
            });
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
