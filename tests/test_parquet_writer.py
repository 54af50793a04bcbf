"""The engine's Parquet writer (`dcsim._core.write_parquet`, `crates/dcsim-py/src/parquet.rs`).

It replaced pyarrow's `write_table` for the result tables so that `dcsim run` needs no pyarrow.
What it must give, checked against pyarrow itself (an independent writer and reader): the values
pyarrow's file of the same columns reads back (types, nulls, values, bit for bit; strings as
string rather than large_string, a label column as dictionary-encoded strings without the Arrow
schema that would make it a dictionary type), NaN as null, several row groups for long series,
and the errors a user can cause named by column or by the OS's own errno."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dcsim
from dcsim import _core
from dcsim.result import TABLES, Result


def _pyarrow_table(columns: list) -> pa.Table:
    """What the earlier writer (pyarrow) made of the same columns: NaN as null, strings as
    large_string, a label column as a dictionary of large_string with int32 codes."""
    arrays = []
    for _, v in columns:
        if isinstance(v, tuple):
            codes, cats = v
            idx = pa.array(np.where(codes >= 0, codes, 0), type=pa.int32(), mask=codes < 0)
            arrays.append(pa.DictionaryArray.from_arrays(idx, pa.array(cats, type=pa.large_string())))
        elif isinstance(v, list):
            arrays.append(pa.array(v, type=pa.large_string()))
        elif v.dtype.kind == "f":
            arrays.append(pa.array(v, mask=np.isnan(v)))
        else:
            arrays.append(pa.array(v))
    return pa.table(arrays, names=[n for n, _ in columns])


def _plain(a: pa.ChunkedArray) -> pa.ChunkedArray:
    """A column with its strings as plain strings (dictionary and large_string decoded)."""
    if pa.types.is_dictionary(a.type) or pa.types.is_large_string(a.type):
        return a.cast(pa.string())
    return a


def _both(tmp_path: Path, columns: list) -> tuple[pa.Table, pa.Table]:
    """The table read back from the engine's file and from pyarrow's file of the same columns."""
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    _core.write_parquet(ours, columns)
    pq.write_table(_pyarrow_table(columns), theirs)
    return pq.read_table(ours), pq.read_table(theirs)


def test_every_kind_of_column_reads_back_as_pyarrows_own_file_does(tmp_path):
    columns = [
        ("t_s", np.array([0.0, np.nan, 2.5e-6, -1.0, np.inf])),
        ("flow", np.array([0, 1, 2**64 - 1, 7, 3], dtype=np.uint64)),
        ("signed", np.array([-(2**63), -1, 0, 1, 2**63 - 1], dtype=np.int64)),
        ("code", np.array([5, -5, 0, 1, 2], dtype=np.int32)),
        ("ok", np.array([True, False, True, True, False])),
        ("name", ["s0->r", "", "überall ✓", "a", "b"]),
        ("flow_label", (np.array([2, -1, 0, 2, 1], dtype=np.int32), ["s0->r #0", "s1->r #1", "s10->r #10"])),
    ]
    ours, theirs = _both(tmp_path, columns)
    assert ours.schema.names == theirs.schema.names
    assert [_plain(ours[n]).type for n in ours.schema.names] == [_plain(theirs[n]).type for n in theirs.schema.names]
    assert [str(ours[n].type) for n in ("t_s", "flow", "signed", "code", "ok")] == \
        ["double", "uint64", "int64", "int32", "bool"]
    for name in ours.schema.names:
        assert _plain(ours[name]).equals(_plain(theirs[name])), name
    df = pd.read_parquet(tmp_path / "ours.parquet", read_dictionary=["flow_label"])
    assert isinstance(df["flow_label"].dtype, pd.CategoricalDtype)
    assert df["flow_label"].isna().tolist() == [False, True, False, False, False]
    assert df["t_s"].isna().tolist() == [False, True, False, False, False]
    assert df["flow"].dtype == np.uint64 and int(df["flow"].iloc[2]) == 2**64 - 1


def test_a_long_series_is_written_in_row_groups_of_2_20_rows_and_reads_back_whole(tmp_path):
    n = (1 << 20) + 12_345  # one row group and part of a second
    t = np.arange(n, dtype=np.float64) * 1e-5
    t[::1000] = np.nan
    flow = (np.arange(n) % 100).astype(np.uint64)
    label = ((np.arange(n) % 100).astype(np.int32), [f"f{i:03d}" for i in range(100)])
    path = tmp_path / "cwnd.parquet"
    _core.write_parquet(path, [("t_s", t), ("flow", flow), ("flow_label", label)])
    meta = pq.ParquetFile(path).metadata
    assert (meta.num_rows, meta.num_row_groups) == (n, 2)
    back = pq.read_table(path)
    assert np.array_equal(back["t_s"].to_numpy(zero_copy_only=False), t, equal_nan=True)
    assert np.array_equal(back["flow"].to_numpy(), flow)
    assert _plain(back["flow_label"]).to_pylist()[:3] == ["f000", "f001", "f002"]
    # The label column's pages are dictionary-encoded, the numbers' not (as before: see parquet.rs).
    col = {meta.row_group(0).column(i).path_in_schema: meta.row_group(0).column(i) for i in range(3)}
    assert col["flow_label"].has_dictionary_page and not col["t_s"].has_dictionary_page
    assert col["t_s"].compression == "SNAPPY"


_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 40), data=st.data())
def test_any_columns_read_back_as_pyarrows_file_of_them(tmp_path_factory, rows, data):
    cats = data.draw(st.lists(st.text(max_size=6), min_size=1, max_size=5, unique=True))
    columns = [
        ("f", np.array(data.draw(st.lists(_floats, min_size=rows, max_size=rows)), dtype=np.float64)),
        ("u", np.array(data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=rows, max_size=rows)), dtype=np.uint64)),
        ("b", np.array(data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows)), dtype=bool)),
        ("s", data.draw(st.lists(st.text(max_size=8), min_size=rows, max_size=rows))),
        ("l", (np.array(data.draw(st.lists(st.integers(-1, len(cats) - 1), min_size=rows, max_size=rows)),
                        dtype=np.int32), cats)),
    ]
    ours, theirs = _both(tmp_path_factory.mktemp("pq"), columns)
    assert ours.num_rows == theirs.num_rows == rows
    for name in ours.schema.names:
        assert _plain(ours[name]).equals(_plain(theirs[name])), name


def test_result_tables_read_back_equal_to_the_runs_own(tmp_path):
    """Result.to_dir (the engine's writer) then Result.from_dir gives the run's DataFrames,
    label categories included (every name, sorted), though the files hold only the used names;
    a sweep's worker sends the same bytes as the files."""
    d = dcsim.load_scenario(Path(__file__).parent.parent / "examples" / "dctcp_dumbbell.toml").to_dict()
    d["run"].update(duration="20ms", warmup="5ms")
    d["metrics"] = {**d.get("metrics", {}), "trace_flows": [1, 3]}
    res = dcsim.simulate(dcsim.Scenario.from_dict(d))
    sent = {t: res.tables.parquet_bytes(t) for t in TABLES}  # what a sweep's worker sends
    res.to_dir(tmp_path)
    for t in TABLES:
        assert (tmp_path / f"{t}.parquet").read_bytes() == sent[t], t
    back = Result.from_dir(tmp_path)
    for t in TABLES:
        if not res.tables.rows(t):
            continue
        mine = res.tables[t]
        pd.testing.assert_frame_equal(back.tables[t], mine, check_dtype=False, check_categorical=True, obj=t)
        for c in mine.columns:
            if isinstance(mine[c].dtype, pd.CategoricalDtype):
                assert list(back.tables[t][c].cat.categories) == list(mine[c].cat.categories), (t, c)
        # A table read as a DataFrame is sent as the same bytes.
        assert res.tables.parquet_bytes(t) == sent[t], t


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_the_parquet_writer_reports_a_full_disk_as_the_os_does():
    with pytest.raises(OSError) as e:
        _core.write_parquet("/dev/full", [("t_s", np.arange(100_000, dtype=np.float64))])
    assert e.value.errno == errno.ENOSPC and e.value.filename == "/dev/full"


def test_a_missing_directory_is_the_oses_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        _core.write_parquet(tmp_path / "no" / "x.parquet", [("a", np.zeros(3))])
    assert e.value.filename == str(tmp_path / "no" / "x.parquet")


@pytest.mark.parametrize("columns, error, words", [
    ([("a", np.zeros(3)), ("b", np.zeros(2))], ValueError, ['"b" has 2 rows, the first column 3']),
    ([("x", np.zeros(3, dtype=np.float32))], TypeError, ['"x"', "float32", "float64, int64, uint64, int32 or bool"]),
    ([("x", [1, 2])], TypeError, ['"x"', "only str"]),
    ([("x", (np.array([0, 2], dtype=np.int32), ["a", "b"]))], ValueError, ['"x"', "code 2", "-1..2"]),
    ([("x", (np.array([0], dtype=np.int64), ["a"]))], TypeError, ['"x"', "int32 codes"]),
    ([("x", np.zeros((2, 2)))], ValueError, ['"x"', "1-d"]),
    ([("x", np.zeros(6)[::2])], ValueError, ['"x"', "contiguous"]),
    ([("x", {"a": 1})], TypeError, ['"x"', "numpy array"]),
])
def test_a_column_it_cannot_write_is_named_before_any_file_is_made(tmp_path, columns, error, words):
    path = tmp_path / "t.parquet"
    with pytest.raises(error) as e:
        _core.write_parquet(path, columns)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert not path.exists()


def test_a_second_independent_reader_duckdb_reads_the_same_values(tmp_path):
    """DuckDB (its own Parquet reader, not Arrow's) reads the types and values written."""
    import duckdb  # a test dependency (tests/requirements.txt)
    path = tmp_path / "t.parquet"
    _core.write_parquet(path, [
        ("t_s", np.array([0.5, np.nan, 2.0])),
        ("flow", np.array([1, 2**63, 3], dtype=np.uint64)),
        ("flow_label", (np.array([1, -1, 0], dtype=np.int32), ["a", "b"])),
        ("ok", np.array([True, False, True])),
    ])
    con = duckdb.connect()
    rows = con.execute(f"SELECT t_s, flow, flow_label, ok FROM read_parquet('{path}')").fetchall()
    assert rows == [(0.5, 1, "b", True), (None, 2**63, None, False), (2.0, 3, "a", True)]
    types = con.execute(f"SELECT typeof(t_s), typeof(flow), typeof(flow_label), typeof(ok) FROM read_parquet('{path}') LIMIT 1").fetchall()
    assert types == [("DOUBLE", "UBIGINT", "VARCHAR", "BOOLEAN")]


def test_the_files_are_the_same_whether_or_not_a_table_was_read_or_came_from_a_directory(tmp_path):
    """One schema whatever the path (a robustness probe): a table read as a DataFrame first, or a
    result read back with Result.from_dir, was written by pandas (labels as dictionary<int8>, text
    as large_string, pandas metadata) and read back with other dtypes; and from_dir's summary had
    no wall time, which summary.json has."""
    d = dcsim.load_scenario(Path(__file__).parent.parent / "examples" / "dctcp_dumbbell.toml").to_dict()
    d["run"].update(duration="20ms", warmup="5ms")
    sc = dcsim.Scenario.from_dict(d)
    dcsim.simulate(sc).to_dir(tmp_path / "a")
    read = dcsim.simulate(sc)
    for t in TABLES:
        _ = read.tables[t]  # every table now a DataFrame
    read.to_dir(tmp_path / "b")
    back = Result.from_dir(tmp_path / "a")
    back.to_dir(tmp_path / "c")
    for t in TABLES:
        first = (tmp_path / "a" / f"{t}.parquet").read_bytes()
        assert (tmp_path / "b" / f"{t}.parquet").read_bytes() == first, t
        assert (tmp_path / "c" / f"{t}.parquet").read_bytes() == first, t
        assert read.tables.parquet_bytes(t) == first, t
    wall = json.loads((tmp_path / "a" / "summary.json").read_text())["wall_s"]
    assert back.wall_s == wall and back.summary()["wall_s"] == wall


def test_every_table_reads_back_with_the_runs_own_dtypes_empty_ones_included(tmp_path):
    """An empty text column (a dumbbell's workloads, sources and cps tables) was float64 in the
    run and text read back by from_dir (a probe): each column must have one dtype either way."""
    d = dcsim.load_scenario(Path(__file__).parent.parent / "examples" / "dctcp_dumbbell.toml").to_dict()
    d["run"].update(duration="20ms", warmup="5ms")
    res = dcsim.simulate(dcsim.Scenario.from_dict(d))
    res.to_dir(tmp_path)
    back = Result.from_dir(tmp_path)
    empty = [t for t in TABLES if not res.tables.rows(t)]
    assert {"workloads", "sources", "cps"} <= set(empty)
    for t in TABLES:
        mine, theirs = res.tables[t], back.tables[t]
        assert list(theirs.columns) == list(mine.columns), t
        for c in mine.columns:
            assert theirs[c].dtype == mine[c].dtype, (t, c, mine[c].dtype, theirs[c].dtype)
