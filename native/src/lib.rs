//! kconnect_native: the optional compiled hot path of kconnect.
//!
//! kconnect works without this module; `kconnect._hot_path` imports it when it is installed
//! (and `KCONNECT_NATIVE` is not `0`). Each entry point does, over a whole batch, exactly what
//! the pure-Python reference does record by record, for the cases it fully understands; for
//! anything else it hands the record (or the batch) back, and the Python code does it, so
//! results, errors and messages are the Python path's own:
//!
//! * `JsonEncoder` / `JsonDecoder`: JsonConverter payloads of one compiled schema, straight
//!   between bytes and kconnect's data model (`Struct`, `SchemaAndValue`);
//! * `copy_binary`: the PostgreSQL binary COPY data of a batch of rows (the JDBC sink);
//! * `message_columns`: topics, keys, values, partitions and offsets of a consumed batch,
//!   `sink_records`: its SinkRecords (the sink loop), `sink_rows`: the JDBC sink's rows of a
//!   batch, `topic_run_end` / `schema_run_end`: where the JDBC sink's runs of one topic and
//!   of one pair of schemas end;
//! * `utf8_encode_batch` / `utf8_decode_batch`: StringConverter batches in UTF-8;
//! * `install_dealloc`: a short deallocator for plain `__slots__` classes, which `init` gives
//!   the records and `Struct` (freeing them was a quarter to a third of the SMT chain's time);
//! * `install_arena_cache` / `arena_cache_stats`: freed pymalloc arenas kept for the next
//!   batch instead of unmapped and faulted in again (see `arena.rs`).
//!
//! The plans these objects run are built by the Python side (`kconnect.converters.
//! json_native`, the transforms' `native_step`) from the Python reference codecs, so the two
//! paths cannot drift apart on a schema's rules.

mod arena;
mod batch;
mod convert;
mod copy;
mod dealloc;
mod decode;
mod encode;
mod java;
mod jdbc_rows;
mod json;
mod model;
mod pyconv;
mod records;
mod render;
mod smt;
mod text;
mod types;
mod util;

use pyo3::prelude::*;

// Native records allocate and free many small values per record: mimalloc's size-class free
// lists cost a fraction of glibc malloc's bins and consolidation for that pattern.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pyfunction]
fn init(
    struct_cls: &Bound<'_, PyAny>,
    sav_cls: &Bound<'_, PyAny>,
    source_cls: &Bound<'_, PyAny>,
    sink_cls: &Bound<'_, PyAny>,
) -> PyResult<()> {
    types::init(struct_cls, sav_cls, source_cls, sink_cls)?;
    Ok(())
}

#[pymodule]
fn kconnect_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // which sources it was built from (scripts/lib.sh rebuilds when they change)
    m.add(
        "__build__",
        option_env!("KCONNECT_NATIVE_BUILD").unwrap_or(""),
    )?;
    m.add_function(wrap_pyfunction!(init, m)?)?;
    m.add_function(wrap_pyfunction!(dealloc::install_dealloc, m)?)?;
    m.add_function(wrap_pyfunction!(arena::install_arena_cache, m)?)?;
    m.add_function(wrap_pyfunction!(arena::arena_cache_stats, m)?)?;
    m.add_class::<encode::JsonEncoder>()?;
    m.add_class::<decode::JsonDecoder>()?;
    m.add_class::<convert::Converter>()?;
    m.add_class::<batch::RecordBatch>()?;
    m.add_class::<batch::BatchIter>()?;
    m.add_class::<smt::Step>()?;
    m.add_function(wrap_pyfunction!(pyconv::records::init_records, m)?)?;
    m.add_function(wrap_pyfunction!(decode::decode_schemaless_batch, m)?)?;
    m.add_function(wrap_pyfunction!(copy::copy_binary, m)?)?;
    m.add_function(wrap_pyfunction!(records::sink_records, m)?)?;
    m.add_function(wrap_pyfunction!(records::message_columns, m)?)?;
    m.add_function(wrap_pyfunction!(records::sink_rows, m)?)?;
    m.add_function(wrap_pyfunction!(records::topic_run_end, m)?)?;
    m.add_function(wrap_pyfunction!(records::schema_run_end, m)?)?;
    m.add_function(wrap_pyfunction!(text::utf8_encode_batch, m)?)?;
    m.add_function(wrap_pyfunction!(text::utf8_decode_batch, m)?)?;
    Ok(())
}
