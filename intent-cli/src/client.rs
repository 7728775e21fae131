//! The client a command calls through: the providers of the environment, recorded to a
//! cassette, or a cassette replayed.

use std::sync::Arc;

use intent_core::provider::Provider;
use intent_core::testing::{self, CassetteMode, ReplayProvider};
use intent_core::{AiRequestOptions, IntentClient};

use crate::cli::CallArgs;
use crate::exit::{CliResult, Failure};

/// The client for `args`: a replay of `--replay`, or the environment's providers (each recorded
/// to `--record`).
pub fn client(args: &CallArgs) -> CliResult<IntentClient> {
    let providers: Vec<Arc<dyn Provider>> = match (&args.replay, &args.record) {
        (Some(path), _) => {
            let replays = ReplayProvider::open_all(path).map_err(Failure::from_intent)?;
            if replays.is_empty() {
                return Err(Failure::config(format!(
                    "the cassette {} has no recording; make one with --record",
                    path.display()
                )));
            }
            replays
                .into_iter()
                .map(|replay| Arc::new(replay) as Arc<dyn Provider>)
                .collect()
        }
        (None, record) => {
            let providers = IntentClient::providers_from_env().map_err(Failure::from_intent)?;
            match record {
                None => providers,
                Some(path) => providers
                    .into_iter()
                    .map(|provider| {
                        testing::cassette_with_mode(CassetteMode::Record, path, || Ok(provider))
                            .map(|cassette| Arc::new(cassette) as Arc<dyn Provider>)
                            .map_err(Failure::from_intent)
                    })
                    .collect::<CliResult<_>>()?,
            }
        }
    };
    let names: Vec<String> = providers.iter().map(|p| p.name().to_owned()).collect();
    if let Some(wanted) = &args.provider {
        if !names.iter().any(|n| n == wanted) {
            return Err(Failure::usage(format!(
                "no provider is named `{wanted}`; the configured providers are: {}",
                names.join(", ")
            )));
        }
    }
    let mut builder = IntentClient::builder();
    for (i, provider) in providers.into_iter().enumerate() {
        builder = if i == 0 {
            builder.provider(provider)
        } else {
            builder.fallback(provider)
        };
    }
    builder.build().map_err(Failure::from_intent)
}

/// An intent's options with the command line's provider, model and temperature set.
pub fn options(args: &CallArgs, file: &AiRequestOptions) -> AiRequestOptions {
    let mut options = file.clone();
    if args.provider.is_some() {
        options.provider.clone_from(&args.provider);
    }
    if args.model.is_some() {
        options.model.clone_from(&args.model);
    }
    if args.temperature.is_some() {
        options.temperature = args.temperature;
    }
    options
}
