//! `intent-quality CASES.json [--out DIR] [--only plain|ruled|grounded]`: runs a case set plain,
//! ruled and grounded against the configured model, writes `DIR/plain.jsonl`, `DIR/ruled.jsonl`
//! and `DIR/grounded.jsonl`, and prints the scores side by side. See the library docs for how the model is chosen.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use intent_core::prelude::*;
use intent_quality::{run_set, score_rows, side_by_side, to_json_lines, CaseSet, Variant};

const USAGE: &str = "usage: intent-quality CASES.json [--out DIR] [--only plain|ruled|grounded]";

struct Args {
    cases: PathBuf,
    out: PathBuf,
    only: Option<Variant>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut cases = None;
    let mut out = PathBuf::from("target/quality");
    let mut only = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = args.next().ok_or("--out needs a folder")?.into(),
            "--only" => {
                only = Some(match args.next().as_deref() {
                    Some("plain") => Variant::Plain,
                    Some("ruled") => Variant::Ruled,
                    Some("grounded") => Variant::Grounded,
                    _ => return Err("--only takes plain, ruled or grounded".into()),
                })
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other if cases.is_none() && !other.starts_with('-') => cases = Some(other.into()),
            other => return Err(format!("unexpected argument {other}\n{USAGE}")),
        }
    }
    Ok(Args {
        cases: cases.ok_or(USAGE)?,
        out,
        only,
    })
}

/// The OpenAI-compatible server to ask: the environment's, else the local model.
fn provider() -> Result<OpenAiProvider, String> {
    if std::env::var_os("OPENAI_API_KEY").is_some() || std::env::var_os("OPENAI_BASE_URL").is_some()
    {
        return OpenAiProvider::from_env().map_err(|e| e.to_string());
    }
    let base_url = match std::env::var("INTENT_LLM_BASE_URL") {
        Ok(url) => url,
        Err(_) => start_local_model()?,
    };
    Ok(OpenAiProvider::new("")
        .with_base_url(base_url)
        .with_name("local")
        .with_timeout(Duration::from_secs(180)))
}

fn start_local_model() -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/local-llm/start.sh");
    eprintln!("starting the local model with {}", script.display());
    let output = std::process::Command::new("bash")
        .arg(&script)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!("{} failed", script.display()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

async fn run(args: Args) -> Result<(), String> {
    let set = CaseSet::load(&args.cases)?;
    let client = IntentClient::new(provider()?);
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut runs = Vec::new();
    for variant in Variant::ALL {
        if args.only.is_some_and(|only| only != variant) {
            continue;
        }
        let rows = run_set(&client, &set, variant).await;
        let path = args.out.join(format!("{variant}.jsonl"));
        std::fs::write(&path, to_json_lines(&rows))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
        runs.push((variant, score_rows(&set, &rows)));
    }
    print!("{}", side_by_side(&runs));
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("intent-quality: {message}");
            ExitCode::FAILURE
        }
    }
}
