//! Medians, ratios and the process's peak memory.

use std::time::{Duration, Instant};

/// The median of `values` (the mean of the two middle ones for an even count); 0 for none.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 0 {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

/// Times `run` once.
pub fn time<R>(run: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let out = run();
    (start.elapsed(), out)
}

/// Reads a `kB` field of `/proc/self/status` (`VmHWM`, `VmRSS`) in bytes; `None` off Linux.
pub fn proc_status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|line| line.starts_with(field) && line[field.len()..].starts_with(':'))?;
    let kb: u64 = line[field.len() + 1..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Resets the process's peak resident size (`VmHWM`) to its current size; false where the kernel
/// does not allow it.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Bytes as `1.2 MB` / `340 KB`.
pub fn human_bytes(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{:.0} KB", bytes as f64 / 1024.0)
    }
}
