//! kconnect's data-model classes and the offsets of their `__slots__`, handed over once by
//! `kconnect._hot_path` through `init`.

use crate::util::member_offset;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::sync::OnceLock;

pub struct Types {
    pub struct_tp: *mut ffi::PyTypeObject,
    pub struct_schema: isize,
    pub struct_values: isize,
    pub sav_tp: *mut ffi::PyTypeObject,
    pub source_tp: *mut ffi::PyTypeObject,
    pub sink_tp: *mut ffi::PyTypeObject,
    // ConnectRecord (shared by both record classes)
    pub topic: isize,
    pub kafka_partition: isize,
    pub key_schema: isize,
    pub key: isize,
    pub value_schema: isize,
    pub value: isize,
    pub timestamp: isize,
    pub headers: isize,
    // SourceRecord
    pub source_partition: isize,
    pub source_offset: isize,
    // SinkRecord
    pub kafka_offset: isize,
    pub timestamp_type: isize,
    pub original_topic: isize,
    pub original_kafka_partition: isize,
    pub original_kafka_offset: isize,
}

impl Types {
    /// The slots both record classes have, as offsets.
    #[inline(always)]
    pub fn common_slots(&self) -> [isize; 8] {
        [
            self.topic,
            self.kafka_partition,
            self.key_schema,
            self.key,
            self.value_schema,
            self.value,
            self.timestamp,
            self.headers,
        ]
    }

    /// `SinkRecord`'s own slots, as offsets.
    #[inline(always)]
    pub fn sink_slots(&self) -> [isize; 5] {
        [
            self.kafka_offset,
            self.timestamp_type,
            self.original_topic,
            self.original_kafka_partition,
            self.original_kafka_offset,
        ]
    }

    /// `SourceRecord`'s own slots, as offsets.
    #[inline(always)]
    pub fn source_slots(&self) -> [isize; 2] {
        [self.source_partition, self.source_offset]
    }
}

// The type objects are immortal for the process (kept alive by the references held below);
// they are only used with the GIL held.
unsafe impl Send for Types {}
unsafe impl Sync for Types {}

static TYPES: OnceLock<Types> = OnceLock::new();

pub fn get() -> Option<&'static Types> {
    TYPES.get()
}

fn off(cls: &Bound<'_, PyAny>, name: &str) -> PyResult<isize> {
    unsafe { member_offset(cls.as_ptr(), name) }
        .ok_or_else(|| PyTypeError::new_err(format!("{cls}: '{name}' is not a __slots__ member")))
}

fn plain_slots_type(cls: &Bound<'_, PyAny>) -> PyResult<*mut ffi::PyTypeObject> {
    let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
    unsafe {
        if ffi::PyType_Check(cls.as_ptr()) == 0 || (*tp).tp_dictoffset != 0 {
            return Err(PyTypeError::new_err(format!(
                "{cls} must be a class with __slots__ only"
            )));
        }
    }
    Ok(tp)
}

pub fn init(
    struct_cls: &Bound<'_, PyAny>,
    sav_cls: &Bound<'_, PyAny>,
    source_cls: &Bound<'_, PyAny>,
    sink_cls: &Bound<'_, PyAny>,
) -> PyResult<()> {
    if TYPES.get().is_some() {
        return Ok(());
    }
    let t = Types {
        struct_tp: plain_slots_type(struct_cls)?,
        struct_schema: off(struct_cls, "_schema")?,
        struct_values: off(struct_cls, "_values")?,
        sav_tp: plain_slots_type(sav_cls)?,
        source_tp: plain_slots_type(source_cls)?,
        sink_tp: plain_slots_type(sink_cls)?,
        topic: off(source_cls, "topic")?,
        kafka_partition: off(source_cls, "kafka_partition")?,
        key_schema: off(source_cls, "key_schema")?,
        key: off(source_cls, "key")?,
        value_schema: off(source_cls, "value_schema")?,
        value: off(source_cls, "value")?,
        timestamp: off(source_cls, "timestamp")?,
        headers: off(source_cls, "_headers")?,
        source_partition: off(source_cls, "source_partition")?,
        source_offset: off(source_cls, "source_offset")?,
        kafka_offset: off(sink_cls, "kafka_offset")?,
        timestamp_type: off(sink_cls, "timestamp_type")?,
        original_topic: off(sink_cls, "original_topic")?,
        original_kafka_partition: off(sink_cls, "original_kafka_partition")?,
        original_kafka_offset: off(sink_cls, "original_kafka_offset")?,
    };
    // ConnectRecord's slots must sit at the same offsets in both record classes.
    for name in ["topic", "key", "value", "_headers", "timestamp"] {
        if off(source_cls, name)? != off(sink_cls, name)? {
            return Err(PyTypeError::new_err(
                "record classes disagree on slot offsets",
            ));
        }
    }
    // The chain makes records without zeroing them and writes each of these slots: they must
    // be all of the class's slots (checked before the deallocator is installed, which the
    // check would take for a class-specific one).
    for (cls, own) in [
        (source_cls, t.source_slots().to_vec()),
        (sink_cls, t.sink_slots().to_vec()),
    ] {
        let mut known: Vec<isize> = t.common_slots().into_iter().chain(own).collect();
        known.sort_unstable();
        let slots = unsafe { crate::dealloc::plain_slots(cls.as_ptr() as *mut ffi::PyTypeObject) }
            .map_err(|why| PyTypeError::new_err(format!("{cls}: {why}")))?;
        if slots != known {
            return Err(PyTypeError::new_err(format!(
                "{cls} has slots the native code does not know"
            )));
        }
    }
    // Records and structs are freed by the million: give them the short deallocator.
    for c in [struct_cls, source_cls, sink_cls] {
        crate::dealloc::install_dealloc(c)?;
    }
    // Keep the classes alive for the life of the process.
    for c in [struct_cls, sav_cls, source_cls, sink_cls] {
        std::mem::forget(c.clone().unbind());
    }
    let _ = TYPES.set(t);
    Ok(())
}
