//! Integration tests: Redis, against a real `redis-server` on loopback (started by `.ci/run`, or
//! by hand: `redis-server --port 6390 --save '' &` then `INTENT_REDIS_URL=redis://127.0.0.1:6390/`):
//! the shared cache, and the rate limiter shared by a fleet of processes. Every test is ignored by
//! default; run them with `cargo test -p intent-tests --test redis -- --ignored`.

mod cache;
mod rate_limit;
