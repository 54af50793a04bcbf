//! Errors a user can cause. Every one names the field and what is allowed.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A scenario field is out of range or inconsistent.
    #[error("{field}: {msg}")]
    Invalid { field: String, msg: String },
    /// The scenario could not be parsed at all.
    #[error("scenario is not valid JSON for dcsim: {0}")]
    Parse(String),
    /// Running was asked for something impossible (e.g. time going back).
    #[error("run: {0}")]
    Run(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand for an [`Error::Invalid`] naming `field`.
pub fn invalid(field: impl Into<String>, msg: impl Into<String>) -> Error {
    Error::Invalid { field: field.into(), msg: msg.into() }
}
