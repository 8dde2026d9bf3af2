//! The native record model: Connect schemas, values and records held in compiled memory.
//!
//! A batch of records (`crate::batch::RecordBatch`) keeps its records in this form from the
//! converter through the transformation chain to the sink or the producer; Python objects
//! (`Struct`, `SinkRecord`, ...) are made from it only when Python code asks for a record
//! (`crate::pyconv`).

pub mod pyobj;
pub mod record;
pub mod schema;
pub mod value;
