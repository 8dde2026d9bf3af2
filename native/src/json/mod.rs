//! JSON text and native values: the reader and writer behind the native JsonConverter.

pub mod read;
pub mod write;
