//! Between the native record model and kconnect's Python data model.
//!
//! `to_py` makes the Python objects a Python plugin sees; `from_py` takes in what a Python task
//! or transformation made. Both run with the GIL held.

pub mod civil;
pub mod from_py;
pub mod records;
pub mod to_py;
