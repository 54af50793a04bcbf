//! `write_parquet(path, columns)`: one result table to a Parquet file with the `parquet` crate
//! (its column writers, without Arrow), the GIL released while it encodes and writes.
//!
//! This is only the file format: which columns a table has, and what its label columns hold, is
//! `dcsim.result`'s (it passes the columns in order). Types as pyarrow reads them back: float64
//! (NaN stored as null, as pandas writes a missing value), uint64, int64, int32, bool, UTF-8
//! strings, and a label column as dictionary-encoded strings (code -1: null; `Result.from_dir`
//! reads it back as the run's categorical). Pages are Snappy-compressed, as pyarrow's default;
//! dictionary pages only for the label columns (for the numbers they cost time and no space).
//! No Arrow schema is stored (the Arrow crates would take ~2 min more to compile than the
//! `parquet` crate alone, ~25 s): read straight with pandas, a label column is a string column.
//! `dcsim run` thus needs no pyarrow (its import was ~50 ms of the command's ~0.33 s).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use numpy::{PyArrayDescrMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// Rows per Parquet row group (pyarrow's default too). Within a group a column is handed to the
/// crate [`CHUNK`] rows at a time, so writing a table never holds a second copy of a series.
const GROUP_ROWS: usize = 1 << 20;

/// One column, borrowed from the numpy arrays the caller keeps alive (read while the GIL is
/// released: the arrays are not resized meanwhile; `dcsim.result` passes snapshots).
enum Col<'a> {
    F64(&'a [f64]),
    I64(&'a [i64]),
    U64(&'a [u64]),
    I32(&'a [i32]),
    Bool(&'a [bool]),
    Str(&'a [String]),
    /// A label column: codes into `categories` (-1: no label, stored as null).
    Label {
        codes: &'a [i32],
        categories: &'a [String],
    },
}

/// A column as the caller gave it, holding its numpy array's read borrow.
enum Taken<'py> {
    F64(PyReadonlyArray1<'py, f64>),
    I64(PyReadonlyArray1<'py, i64>),
    U64(PyReadonlyArray1<'py, u64>),
    I32(PyReadonlyArray1<'py, i32>),
    Bool(PyReadonlyArray1<'py, bool>),
    Str(Vec<String>),
    Label(PyReadonlyArray1<'py, i32>, Vec<String>),
}

fn bad(name: &str, what: &str) -> PyErr {
    PyTypeError::new_err(format!("column {name:?}: {what}"))
}

impl<'py> Taken<'py> {
    /// The column from a contiguous 1-d numpy array (float64, int64, uint64, int32, bool), a
    /// list of str, or a (int32 codes, list of str categories) label pair.
    fn from_py(name: &str, v: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(list) = v.cast::<PyList>() {
            return Ok(Taken::Str(list.extract().map_err(|_| bad(name, "a list column must hold only str"))?));
        }
        if let Ok(pair) = v.cast::<PyTuple>() {
            let (codes, categories): (PyReadonlyArray1<'py, i32>, Vec<String>) =
                pair.extract().map_err(|_| bad(name, "a label column is (int32 codes, list of str categories)"))?;
            let n = categories.len() as i64;
            if let Some(&c) = codes.as_slice()?.iter().find(|&&c| c < -1 || i64::from(c) >= n) {
                return Err(PyValueError::new_err(format!(
                    "column {name:?}: label code {c} is outside -1..{n} (the categories)"
                )));
            }
            return Ok(Taken::Label(codes, categories));
        }
        let arr = v
            .cast::<PyUntypedArray>()
            .map_err(|_| bad(name, "expected a numpy array, a list of str or (int32 codes, list of str categories)"))?;
        if arr.ndim() != 1 {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: a column is 1-d, got {} dimensions",
                arr.ndim()
            )));
        }
        let (py, dtype) = (v.py(), arr.dtype());
        let taken = if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
            Taken::F64(v.extract()?)
        } else if dtype.is_equiv_to(&numpy::dtype::<u64>(py)) {
            Taken::U64(v.extract()?)
        } else if dtype.is_equiv_to(&numpy::dtype::<i64>(py)) {
            Taken::I64(v.extract()?)
        } else if dtype.is_equiv_to(&numpy::dtype::<i32>(py)) {
            Taken::I32(v.extract()?)
        } else if dtype.is_equiv_to(&numpy::dtype::<bool>(py)) {
            Taken::Bool(v.extract()?)
        } else {
            return Err(bad(
                name,
                &format!("numpy dtype {} cannot be written (float64, int64, uint64, int32 or bool)", dtype.str()?),
            ));
        };
        if !arr.is_contiguous() {
            return Err(PyValueError::new_err(format!("column {name:?}: the array must be contiguous")));
        }
        Ok(taken)
    }

    fn col(&self) -> PyResult<Col<'_>> {
        Ok(match self {
            Taken::F64(a) => Col::F64(a.as_slice()?),
            Taken::I64(a) => Col::I64(a.as_slice()?),
            Taken::U64(a) => Col::U64(a.as_slice()?),
            Taken::I32(a) => Col::I32(a.as_slice()?),
            Taken::Bool(a) => Col::Bool(a.as_slice()?),
            Taken::Str(v) => Col::Str(v),
            Taken::Label(c, cats) => Col::Label { codes: c.as_slice()?, categories: cats },
        })
    }
}

impl Col<'_> {
    fn len(&self) -> usize {
        match self {
            Col::F64(v) => v.len(),
            Col::I64(v) => v.len(),
            Col::U64(v) => v.len(),
            Col::I32(v) => v.len(),
            Col::Bool(v) => v.len(),
            Col::Str(v) => v.len(),
            Col::Label { codes, .. } => codes.len(),
        }
    }

    /// The column's Parquet type: optional (nullable) as pyarrow writes every column.
    fn parquet_type(&self, name: &str) -> parquet::errors::Result<Type> {
        let (physical, logical) = match self {
            Col::F64(_) => (Physical::DOUBLE, None),
            Col::I64(_) => (Physical::INT64, None),
            Col::U64(_) => (Physical::INT64, Some(LogicalType::Integer { bit_width: 64, is_signed: false })),
            Col::I32(_) => (Physical::INT32, None),
            Col::Bool(_) => (Physical::BOOLEAN, None),
            Col::Str(_) | Col::Label { .. } => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        };
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()
    }

    /// Write rows `r` (at most [`CHUNK`]) of the column into `w`, its column writer in the current
    /// row group, through the reused buffers of `s`.
    fn write(
        &self,
        r: std::ops::Range<usize>,
        w: &mut ColumnWriter<'_>,
        s: &mut Scratch,
    ) -> parquet::errors::Result<()> {
        let present = &PRESENT[..r.len()];
        s.def.clear();
        match (self, w) {
            (Col::F64(v), ColumnWriter::DoubleColumnWriter(w)) => {
                let v = &v[r];
                if v.iter().any(|x| x.is_nan()) {
                    s.def.extend(v.iter().map(|x| i16::from(!x.is_nan())));
                    s.f64s.clear();
                    s.f64s.extend(v.iter().copied().filter(|x| !x.is_nan()));
                    w.write_batch(&s.f64s, Some(&s.def), None)?;
                } else {
                    w.write_batch(v, Some(present), None)?;
                }
            }
            (Col::I64(v), ColumnWriter::Int64ColumnWriter(w)) => {
                w.write_batch(&v[r], Some(present), None)?;
            }
            (Col::U64(v), ColumnWriter::Int64ColumnWriter(w)) => {
                // Parquet stores an unsigned 64-bit integer in INT64 (its logical type says unsigned).
                s.i64s.clear();
                s.i64s.extend(v[r].iter().map(|&x| x as i64));
                w.write_batch(&s.i64s, Some(present), None)?;
            }
            (Col::I32(v), ColumnWriter::Int32ColumnWriter(w)) => {
                w.write_batch(&v[r], Some(present), None)?;
            }
            (Col::Bool(v), ColumnWriter::BoolColumnWriter(w)) => {
                w.write_batch(&v[r], Some(present), None)?;
            }
            (Col::Str(v), ColumnWriter::ByteArrayColumnWriter(w)) => {
                s.bytes.clear();
                s.bytes.extend(v[r].iter().map(|x| ByteArray::from(x.as_str())));
                w.write_batch(&s.bytes, Some(present), None)?;
            }
            (Col::Label { codes, .. }, ColumnWriter::ByteArrayColumnWriter(w)) => {
                let codes = &codes[r];
                s.def.extend(codes.iter().map(|&c| i16::from(c >= 0)));
                s.bytes.clear();
                // Codes were checked against the categories when taken; a name's bytes are shared.
                s.bytes.extend(codes.iter().filter(|&&c| c >= 0).map(|&c| s.names[c as usize].clone()));
                w.write_batch(&s.bytes, Some(&s.def), None)?;
            }
            _ => unreachable!("the schema's column types follow the columns"),
        }
        Ok(())
    }
}

/// Rows handed to a column writer at a time: the buffers a chunk needs (definition levels,
/// values without their nulls) stay small and are reused, so encoding a table allocates next
/// to nothing per row. That matters where the allocator hands large blocks back to the system
/// at once (Dask sets MALLOC_TRIM_THRESHOLD_=65536 in its workers: whole-column buffers took
/// 12 ms per run there against 6 ms; see benchmarks/MEASUREMENTS.md).
const CHUNK: usize = 4096;

/// Bytes of a data page (pyarrow's default is 1 MiB): Snappy compresses in blocks of 64 KiB
/// whatever the page, and a page's buffers this small stay below the allocator's threshold
/// for handing memory back to the system (see [`CHUNK`]).
const PAGE_BYTES: usize = 64 << 10;

/// Definition levels of a chunk without nulls.
static PRESENT: [i16; CHUNK] = [1; CHUNK];

/// The buffers the chunks of one table reuse.
#[derive(Default)]
struct Scratch {
    def: Vec<i16>,
    f64s: Vec<f64>,
    i64s: Vec<i64>,
    bytes: Vec<ByteArray>,
    /// The current label column's names, as Parquet byte arrays.
    names: Vec<ByteArray>,
}

/// Why a write failed: the file system's error, or the encoder's.
enum Failed {
    Io(std::io::Error),
    Encode(String),
}

impl From<parquet::errors::ParquetError> for Failed {
    fn from(e: parquet::errors::ParquetError) -> Self {
        match e {
            parquet::errors::ParquetError::External(b) => match b.downcast::<std::io::Error>() {
                Ok(io) => Failed::Io(*io),
                Err(b) => Failed::Encode(b.to_string()),
            },
            e => Failed::Encode(e.to_string()),
        }
    }
}

impl Failed {
    /// An OSError as Python's own file functions raise it: OSError(errno, strerror, filename),
    /// which Python turns into its subclass (PermissionError, FileNotFoundError, ...).
    fn into_py(self, path: &Path) -> PyErr {
        match self {
            Failed::Io(e) => match e.raw_os_error() {
                Some(errno) => {
                    let text = e.to_string();
                    let strerror = text.split(" (os error").next().unwrap_or(&text).to_owned();
                    PyOSError::new_err((errno, strerror, path.display().to_string()))
                }
                None => PyOSError::new_err(format!("{}: {e}", path.display())),
            },
            Failed::Encode(e) => PyRuntimeError::new_err(format!(
                "dcsim internal error (please report): writing {}: {e}",
                path.display()
            )),
        }
    }
}

/// Encode `columns` (of equal length) as a Parquet file into `sink` (needs no GIL).
fn encode<W: std::io::Write + Send>(sink: W, columns: &[(String, Col<'_>)]) -> Result<(), Failed> {
    let rows = columns.first().map_or(0, |(_, c)| c.len());
    let mut props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_max_row_group_size(GROUP_ROWS)
        .set_data_page_size_limit(PAGE_BYTES);
    let mut fields = Vec::with_capacity(columns.len());
    for (name, col) in columns {
        if matches!(col, Col::Label { .. }) {
            props = props.set_column_dictionary_enabled(ColumnPath::from(name.as_str()), true);
        }
        fields.push(Arc::new(col.parquet_type(name)?));
    }
    let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build()?);
    let mut writer = SerializedFileWriter::new(sink, schema, Arc::new(props.build()))?;
    let mut scratch = Scratch::default();
    let mut start = 0;
    // One row group per GROUP_ROWS rows (an empty table has one, of no rows, as pyarrow writes).
    loop {
        let end = rows.min(start + GROUP_ROWS);
        let mut group = writer.next_row_group()?;
        for (_, col) in columns {
            let mut w = group.next_column()?.expect("one column writer per field");
            if let Col::Label { categories, .. } = col {
                scratch.names.clear();
                scratch.names.extend(categories.iter().map(|c| ByteArray::from(c.as_str())));
            }
            // In chunks of CHUNK rows: the buffers a chunk needs stay small and are reused.
            for first in (start..end).step_by(CHUNK) {
                col.write(first..end.min(first + CHUNK), w.untyped(), &mut scratch)?;
            }
            w.close()?;
        }
        group.close()?;
        start = end;
        if start >= rows {
            break;
        }
    }
    // Flushes the footer: a full disk shows here.
    writer.close()?;
    Ok(())
}

/// The columns as taken from Python (see `write_parquet`), each checked for its type.
fn taken<'py>(columns: &[(String, Bound<'py, PyAny>)]) -> PyResult<Vec<Taken<'py>>> {
    columns.iter().map(|(n, v)| Taken::from_py(n, v)).collect()
}

/// The columns' data, borrowed from `taken`, checked to be of equal length.
fn borrowed<'a>(columns: &[(String, Bound<'_, PyAny>)], taken: &'a [Taken<'_>]) -> PyResult<Vec<(String, Col<'a>)>> {
    let cols = columns.iter().zip(taken).map(|((n, _), t)| Ok((n.clone(), t.col()?))).collect::<PyResult<Vec<_>>>()?;
    let rows = cols.first().map_or(0, |(_, c)| c.len());
    if let Some((n, c)) = cols.iter().find(|(_, c)| c.len() != rows) {
        return Err(PyValueError::new_err(format!("column {n:?} has {} rows, the first column {rows}", c.len())));
    }
    Ok(cols)
}

/// Write one table to a Parquet file at `path`. `columns`: a list of (name, column), each a
/// contiguous 1-d numpy array (float64, int64, uint64, int32, bool), a list of str, or a label
/// column as (int32 codes, list of str categories; code -1 is no label). Raises TypeError or
/// ValueError naming a column it cannot write (before the file is made), OSError (errno and
/// file name, as Python's own file functions) when the file cannot be written.
#[pyfunction]
fn write_parquet(py: Python<'_>, path: PathBuf, columns: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<()> {
    let taken = taken(&columns)?;
    let cols = borrowed(&columns, &taken)?;
    let write = || encode(File::create(&path).map_err(Failed::Io)?, &cols);
    py.detach(|| crate::no_panic(write))?.map_err(|e| e.into_py(&path))
}

/// The bytes of the Parquet file `write_parquet` would write for `columns` (a sweep's worker
/// sends them to the process that stores the run).
#[pyfunction]
fn parquet_bytes<'py>(py: Python<'py>, columns: Vec<(String, Bound<'py, PyAny>)>) -> PyResult<Bound<'py, PyBytes>> {
    let taken = taken(&columns)?;
    let cols = borrowed(&columns, &taken)?;
    let mut buf = Vec::new();
    py.detach(|| crate::no_panic(|| encode(&mut buf, &cols)))?.map_err(|e| e.into_py(Path::new("<bytes>")))?;
    Ok(PyBytes::new(py, &buf))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_bytes, m)?)?;
    Ok(())
}
