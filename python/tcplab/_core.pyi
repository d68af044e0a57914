"""Type stub of the compiled extension (crates/tcplab-py)."""

class ScenarioError(ValueError): ...

class ArrowTable:
    """One table of a run's results: an Arrow record batch, read through the Arrow PyCapsule
    interface (`polars.DataFrame(table)`, `pyarrow.table(table)`). Columns: docs/traces.md."""

    @property
    def column_names(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

class Emulator:
    """An emulation (tcplab.emulate): the scenario's flows as real TCP through its simulated
    network in real time. `run` blocks (without the GIL) until the scenario's end or `stop()`;
    `taps` is one (sender fd, receiver fd) pair of TUN descriptors per flow."""

    def __init__(self, text: str, format: str = "toml", overrides: list[tuple[str, str]] = ...) -> None: ...
    @property
    def flow_starts(self) -> list[float]: ...
    def clock(self) -> float | None: ...
    def stop(self) -> None: ...
    def run(
        self,
        taps: list[tuple[int, int]],
        pcap: str | None = None,
        snaplen: int = 128,
        max_packets: int = 2_000_000,
        spin_us: float = 20.0,
        realtime: bool = False,
    ) -> tuple[dict[str, ArrowTable], dict[str, object]]: ...

__version__: str

def run_tables(
    text: str, format: str = "toml", overrides: list[tuple[str, str]] = ...
) -> dict[str, ArrowTable]:
    """Runs a scenario: its tables by name (run, flows, traffic, links, totals) and its traces
    (packets, cwnd, queue, ns2_vars; empty unless recorded)."""

def analyze_capture(
    path: str,
    from_s: float = 0.0,
    to_s: float | None = None,
    record_conn: int | None = None,
    max_points: int = 1_000_000,
) -> tuple[dict[str, ArrowTable], dict[str, object]]:
    """Analyzes a pcap/pcapng capture: its tables (connections, segments, rtt) and a summary
    (records, tcp_packets, connections, duration_s, truncated_file, warnings, ...); raises
    ScenarioError for a file that cannot be analyzed. docs/pcap.md."""

def resolve_json(text: str, format: str = "toml", overrides: list[tuple[str, str]] = ...) -> str:
    """The validated scenario with defaults filled in, as JSON; quantities as SI numbers."""

def schema() -> str: ...
def parse_quantity(kind: str, text: str) -> float: ...
def jacobson_series(samples: list[int], gain: int = 4) -> list[tuple[int, int, int]]: ...
