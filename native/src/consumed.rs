//! Reading consumed confluent-kafka `Message`s: topic, partition, offset, timestamp, key,
//! value and headers of each message in a batch.
//!
//! Two readers give the same fields:
//!
//! * **methods**: the message type's own no-argument C methods (`m.topic()`, `m.offset()`...),
//!   called through their function pointers. Works for any type whose methods are plain C
//!   methods; each call makes or increments a Python object (an `int` for the offset, a tuple
//!   and two ints for the timestamp).
//! * **fields**: the fields of confluent-kafka's `Message` struct read in place, for the exact
//!   type `confluent_kafka.cimpl.Message` only. Its layout is checked once per batch type:
//!   the size the type declares must hold the fields read, and the first message of the batch
//!   must give, field by field, what its methods give (the same objects, the same numbers). If
//!   anything differs (another confluent-kafka whose struct moved), the methods reader is used.
//!   A message whose partition or offset its methods would answer `None` for, or whose headers
//!   are still librdkafka's (not yet a Python list), is read through its methods.
//!
//! The fields reader saves the method calls and the objects they make: most of what reading a
//! consumed message costs before any converting.

use crate::model::pyobj::PyObj;
use crate::records::noargs_method;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The leading fields of confluent-kafka's `Message` (`confluent_kafka.h`, with
/// `RD_KAFKA_V_HEADERS`), as far as this reader reads them. Later versions added fields after
/// these (`latency`, `delivery_count`).
#[repr(C)]
struct CMessage {
    ob_base: ffi::PyObject,
    topic: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
    headers: *mut ffi::PyObject,
    c_headers: *mut std::ffi::c_void,
    error: *mut ffi::PyObject,
    partition: i32,
    offset: i64,
    leader_epoch: i32,
    timestamp: i64,
    tstype: std::ffi::c_int,
}

const MESSAGE_TYPE: &str = "confluent_kafka.cimpl.Message";

/// One consumed message's fields, as its methods answer them (`headers` None when it has none).
pub(crate) struct Fields {
    pub topic: PyObj,
    pub partition: i64,
    pub offset: i64,
    pub timestamp_type: i64,
    pub timestamp: i64,
    pub key: PyObj,
    pub value: PyObj,
    pub headers: PyObj,
}

/// Reads the messages of one type (see the module documentation).
pub(crate) struct MessageReader {
    tp: *mut ffi::PyTypeObject,
    methods: [ffi::PyCFunction; 7],
    in_place: bool,
}

impl MessageReader {
    /// A reader for messages of `first`'s type, checked on `first`; None when the type's
    /// methods are not plain no-argument C methods.
    pub(crate) unsafe fn for_message(py: Python<'_>, first: *mut ffi::PyObject) -> PyResult<Option<MessageReader>> {
        let tp = ffi::Py_TYPE(first);
        let mut methods: [ffi::PyCFunction; 7] = [noop; 7];
        for (slot, name) in methods
            .iter_mut()
            .zip(["topic", "partition", "offset", "timestamp", "key", "value", "headers"])
        {
            match noargs_method(tp, name) {
                Some(f) => *slot = f,
                None => return Ok(None),
            }
        }
        let mut reader = MessageReader {
            tp,
            methods,
            in_place: false,
        };
        reader.in_place = reader.layout_known(py, first)?;
        Ok(Some(reader))
    }

    /// Whether `first` (of this reader's type) is confluent-kafka's `Message` whose struct
    /// gives what its methods give.
    unsafe fn layout_known(&self, py: Python<'_>, first: *mut ffi::PyObject) -> PyResult<bool> {
        let name = std::ffi::CStr::from_ptr((*self.tp).tp_name);
        if name.to_bytes() != MESSAGE_TYPE.as_bytes()
            || ((*self.tp).tp_basicsize as usize) < std::mem::size_of::<CMessage>()
        {
            return Ok(false);
        }
        let by_methods = self.by_methods(py, first)?;
        let c = &*(first as *const CMessage);
        let same = |field: *mut ffi::PyObject, got: &PyObj| {
            if field.is_null() {
                got.is_none()
            } else {
                field == got.as_ptr()
            }
        };
        Ok(match (by_methods, self.in_place_fields(first)) {
            (Some(m), Some(f)) => {
                same(c.topic, &m.topic)
                    && same(c.key, &m.key)
                    && same(c.value, &m.value)
                    && f.partition == m.partition
                    && f.offset == m.offset
                    && f.timestamp_type == m.timestamp_type
                    && f.timestamp == m.timestamp
                    && same(c.headers, &m.headers)
            }
            _ => false,
        })
    }

    /// The message's fields; None when its methods answer something other than a message
    /// read from a partition (`None` for the partition or offset, another timestamp form).
    #[inline]
    pub(crate) unsafe fn read(&self, py: Python<'_>, m: *mut ffi::PyObject) -> PyResult<Option<Fields>> {
        if self.in_place {
            if let Some(f) = self.in_place_fields(m) {
                return Ok(Some(f));
            }
        }
        self.by_methods(py, m)
    }

    /// The fields read from the struct; None when a method would do more than read one (the
    /// partition or offset answered as `None`, headers not yet made Python objects).
    #[inline]
    unsafe fn in_place_fields(&self, m: *mut ffi::PyObject) -> Option<Fields> {
        let c = &*(m as *const CMessage);
        if c.partition < 0 || c.offset < 0 || c.topic.is_null() || (c.headers.is_null() && !c.c_headers.is_null()) {
            return None;
        }
        let obj = |p: *mut ffi::PyObject| if p.is_null() { PyObj::none() } else { PyObj::borrowed(p) };
        Some(Fields {
            topic: PyObj::borrowed(c.topic),
            partition: c.partition as i64,
            offset: c.offset,
            timestamp_type: c.tstype as i64,
            timestamp: c.timestamp,
            key: obj(c.key),
            value: obj(c.value),
            headers: obj(c.headers),
        })
    }

    /// The fields as the message's methods answer them.
    unsafe fn by_methods(&self, py: Python<'_>, m: *mut ffi::PyObject) -> PyResult<Option<Fields>> {
        let call = |j: usize| -> PyResult<PyObj> {
            PyObj::steal((self.methods[j])(m, std::ptr::null_mut())).ok_or_else(|| PyErr::fetch(py))
        };
        let topic = call(0)?;
        let partition = call(1)?;
        let offset = call(2)?;
        let ts = call(3)?;
        let int = |o: &PyObj| -> PyResult<i64> {
            let v = ffi::PyLong_AsLongLong(o.as_ptr());
            if v == -1 && !ffi::PyErr_Occurred().is_null() {
                return Err(PyErr::fetch(py));
            }
            Ok(v)
        };
        let partition = int(&partition)?;
        let offset = int(&offset)?;
        if ffi::PyTuple_CheckExact(ts.as_ptr()) == 0 || ffi::PyTuple_GET_SIZE(ts.as_ptr()) != 2 {
            return Ok(None);
        }
        let timestamp_type = int(&PyObj::borrowed(ffi::PyTuple_GET_ITEM(ts.as_ptr(), 0)))?;
        let timestamp = int(&PyObj::borrowed(ffi::PyTuple_GET_ITEM(ts.as_ptr(), 1)))?;
        Ok(Some(Fields {
            topic,
            partition,
            offset,
            timestamp_type,
            timestamp,
            key: call(4)?,
            value: call(5)?,
            headers: call(6)?,
        }))
    }

    /// Whether `m` is of this reader's type.
    #[inline]
    pub(crate) unsafe fn reads(&self, m: *mut ffi::PyObject) -> bool {
        ffi::Py_TYPE(m) == self.tp
    }

    /// Whether this reader reads the struct in place (else through the methods).
    pub(crate) fn in_place(&self) -> bool {
        self.in_place
    }
}

unsafe extern "C" fn noop(_: *mut ffi::PyObject, _: *mut ffi::PyObject) -> *mut ffi::PyObject {
    std::ptr::null_mut()
}

/// `(in_place, fields)` for each message of `msgs` (a list of one type): `fields` is
/// `(topic, partition, offset, (timestamp type, timestamp), key, value, headers)` as the
/// reader read it, and `in_place` whether the reader reads the struct in place. None when the
/// messages' methods are not plain C methods. For tests: both readers must agree with the
/// methods themselves.
#[pyfunction]
pub fn message_fields<'py>(py: Python<'py>, msgs: Bound<'py, PyList>) -> PyResult<Option<(bool, Vec<Bound<'py, PyTuple>>)>> {
    if msgs.is_empty() {
        return Ok(None);
    }
    unsafe {
        let Some(reader) = MessageReader::for_message(py, msgs.get_item(0)?.as_ptr())? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(msgs.len());
        for m in msgs.iter() {
            if !reader.reads(m.as_ptr()) {
                return Ok(None);
            }
            let Some(f) = reader.read(py, m.as_ptr())? else {
                return Ok(None);
            };
            out.push(PyTuple::new(
                py,
                [
                    f.topic.bind(py).clone(),
                    f.partition.into_pyobject(py)?.into_any(),
                    f.offset.into_pyobject(py)?.into_any(),
                    (f.timestamp_type, f.timestamp).into_pyobject(py)?.into_any(),
                    f.key.bind(py).clone(),
                    f.value.bind(py).clone(),
                    f.headers.bind(py).clone(),
                ],
            )?);
        }
        Ok(Some((reader.in_place(), out)))
    }
}
