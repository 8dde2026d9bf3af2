//! kconnect_native: the optional compiled hot path of kconnect.
//!
//! kconnect works without this module; `kconnect._hot_path` imports it when it is installed
//! (and `KCONNECT_NATIVE` is not `0`). Each entry point does, over a whole batch, exactly what
//! the pure-Python reference does record by record, for the cases it fully understands; for
//! anything else it hands the record back, and the Python code does it, so results, errors
//! and messages are the Python path's own:
//!
//! * `RecordBatch` (`batch.rs`): Connect records held natively (`model/`), made from consumed
//!   messages or a source task's records, run through the chain's `Step`s (`smt/`), rendered
//!   as FileStreamSink's text (`render.rs`), encoded for the producer, turned into the JDBC
//!   sink's rows or binary COPY stream (`jdbc_rows.rs`), materialised as kconnect's Python
//!   records only where Python code reads them (`pyconv/`);
//! * `Converter` (`convert/`): the native forms of JsonConverter (`json/`), Confluent's
//!   AvroConverter (`convert/avro.rs`, with plans from `kconnect.converters.avro.native_plan`),
//!   StringConverter in UTF-8, ByteArrayConverter, the number converters and
//!   SimpleHeaderConverter's plain strings, used by the record batch and by the converters' own
//!   batch methods;
//! * `Step` (`smt/`): a built-in transformation or predicate, compiled per schema;
//! * `connect_assignment_array` / `connect_read_assignment_array` (`group_protocol.rs`): the
//!   Connect group protocol's assignment arrays, encoded and decoded;
//! * `host_source_records` (`host_batch.rs`): a source batch from the Java plugin host read
//!   into kconnect's `SourceRecord`s;
//! * for batches that are Python lists (a converter without a native form):
//!   `message_columns`, `sink_records`, `sink_rows`, `topic_run_end` / `schema_run_end`
//!   (`records.rs`) and `copy_binary` of Python rows (`copy.rs`);
//! * `PgRowDecoder` (`pg_values.rs`): PostgreSQL's text output (pgoutput change messages,
//!   a snapshot's rows) read into the values of the native Debezium PostgreSQL source;
//! * `install_dealloc`: a short deallocator for plain `__slots__` classes, which `init` gives
//!   the records and `Struct`; `install_arena_cache` / `arena_cache_stats`: freed pymalloc
//!   arenas kept for the next batch instead of unmapped and faulted in again (`arena.rs`).
//!
//! What a plan needs to know of a schema's rules (its updated schema, a default, a field's
//! masked value...) is asked of the Python reference code, once per schema, so the two paths
//! cannot drift apart.

mod arena;
mod batch;
mod consumed;
mod convert;
mod copy;
mod dealloc;
mod group_protocol;
mod host_batch;
mod java;
mod jdbc_rows;
mod json;
mod model;
mod pg_values;
mod pyconv;
mod records;
mod render;
mod smt;
mod types;
mod util;

use pyo3::prelude::*;

// Native records allocate and free many small values per record: mimalloc's size-class free
// lists cost a fraction of glibc malloc's bins and consolidation for that pattern.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    // mimalloc's, compiled into this module with the allocator
    fn mi_collect(force: bool);
}

/// Give back what the allocator holds for the calling thread beyond its live blocks: its
/// empty and retired pages, purged from memory at once. For a thread that goes idle after a
/// batch (a task waiting for data): otherwise each such thread keeps tens of KiB resident.
#[pyfunction]
fn release_thread_memory(py: Python<'_>) {
    py.detach(|| unsafe { mi_collect(true) });
}

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
    m.add_function(wrap_pyfunction!(release_thread_memory, m)?)?;
    m.add_function(wrap_pyfunction!(dealloc::install_dealloc, m)?)?;
    m.add_function(wrap_pyfunction!(arena::install_arena_cache, m)?)?;
    m.add_function(wrap_pyfunction!(arena::arena_cache_stats, m)?)?;
    m.add_class::<convert::Converter>()?;
    m.add_class::<batch::RecordBatch>()?;
    m.add_class::<batch::BatchIter>()?;
    m.add_class::<smt::Step>()?;
    m.add_class::<pg_values::PgRowDecoder>()?;
    m.add_function(wrap_pyfunction!(pyconv::records::init_records, m)?)?;
    m.add_function(wrap_pyfunction!(copy::copy_binary, m)?)?;
    m.add_function(wrap_pyfunction!(host_batch::host_source_records, m)?)?;
    m.add_function(wrap_pyfunction!(records::sink_records, m)?)?;
    m.add_function(wrap_pyfunction!(records::message_columns, m)?)?;
    m.add_function(wrap_pyfunction!(consumed::message_fields, m)?)?;
    m.add_function(wrap_pyfunction!(group_protocol::connect_assignment_array, m)?)?;
    m.add_function(wrap_pyfunction!(group_protocol::connect_read_assignment_array, m)?)?;
    m.add_function(wrap_pyfunction!(records::sink_rows, m)?)?;
    m.add_function(wrap_pyfunction!(records::topic_run_end, m)?)?;
    m.add_function(wrap_pyfunction!(records::schema_run_end, m)?)?;
    Ok(())
}
