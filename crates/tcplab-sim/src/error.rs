//! Errors a user can cause: each names the field, the value and what was expected.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    #[error("malformed TOML: {0}")]
    Toml(String),
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("--set {path}: {message}")]
    Override { path: String, message: String },
}
