"""Type stubs of the luztar package (apps/python/luztar/__init__.py documents every item)."""
import os
from typing import Any, Callable, Mapping, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str
__all__: list[str]

_Path = Union[str, os.PathLike[str]]
_FieldValue = Union[int, float, bool, str, Sequence[Any], Mapping[str, Any]]

class ModelError(ValueError):
    """A model breaks a rule; ``str(e)`` is ``path:line:col: field: text``."""
    where: str
    path: str
    line: int | None
    column: int | None
    field: str
    detail: str
    def __init__(self, message: str, where: str = ..., field: str = ..., detail: str = ...) -> None: ...

class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run (``.result``: Result) or a sweep (``.result``: SweepResult)."""
    partial: Any
    result: Result | SweepResult | None
    def __init__(self, message: str, partial: Any) -> None: ...

def units_of(signal: str) -> str:
    """The SI unit of a stored signal by its path."""

class Result:
    """Sampled trajectories, event log, status and statistics of a run."""
    time: npt.NDArray[np.float64]
    signals: dict[str, np.ndarray]
    units: dict[str, str]
    body_names: list[str]
    element_names: list[str]
    element_kinds: dict[str, str]
    block_names: list[str]
    events: np.ndarray
    time_stuck: dict[str, float]
    status: str
    message: str
    stats: dict[str, Any]
    model_text: str | None
    summary: str
    def __init__(self, d: dict[str, Any], model_text: str | None = ...) -> None: ...
    @property
    def angle(self) -> npt.NDArray[np.float64]: ...
    @property
    def velocity(self) -> npt.NDArray[np.float64]: ...
    @property
    def element_torque(self) -> npt.NDArray[np.float64]: ...
    @property
    def element_state(self) -> npt.NDArray[np.int8]: ...
    @property
    def body_acceleration(self) -> npt.NDArray[np.float64]: ...
    @property
    def element_relative(self) -> npt.NDArray[np.float64]: ...
    @property
    def element_relative_velocity(self) -> npt.NDArray[np.float64]: ...
    @property
    def element_power(self) -> npt.NDArray[np.float64]: ...
    @property
    def element_dissipated(self) -> npt.NDArray[np.float64]: ...
    @property
    def energy(self) -> dict[str, npt.NDArray[np.float64]]: ...
    @property
    def block_output(self) -> npt.NDArray[np.float64]: ...
    def __getitem__(self, name: str) -> np.ndarray: ...
    def __contains__(self, name: str) -> bool: ...

class Model:
    """A model read from YAML and assembled; ``model[path]`` gets and sets fields."""
    def __getitem__(self, path: str) -> int | float | bool | str:
        """The field's value, numbers in SI (a value written with a unit converted)."""
    def __setitem__(self, path: str, value: _FieldValue) -> None:
        """Sets the field (a number in SI, or text with a unit: "0.5 deg") and re-assembles."""
    def text_of(self, path: str) -> str:
        """The field as written ("0.5 deg")."""
    @staticmethod
    def unit(path: str) -> str:
        """The SI unit of the field at path ("rad", "N m/rad", "1")."""
    @property
    def sets(self) -> dict[str, str]: ...
    @property
    def text(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def body_names(self) -> list[str]: ...
    @property
    def element_names(self) -> list[str]: ...
    @property
    def input_names(self) -> list[str]: ...
    @property
    def block_names(self) -> list[str]: ...
    @property
    def reductions(self) -> list[str]: ...
    def run(self, *, t_start: float = ..., t_end: float = ..., output_step: float = ..., rtol: float = ...,
            atol: float = ..., max_step: float = ..., max_events: int = ..., solver: str = ...,
            integrator: str = ..., step: float = ..., theta: float = ..., **simulation: Any) -> Result:
        """Runs the model; keyword arguments replace simulation.* fields for this run."""
    def simulator(self) -> Simulator: ...
    def sweep(self, parameters: Mapping[str, Any] | None = ..., metrics: Mapping[str, Any] | None = ..., *,
              threads: int = ..., samples: int | None = ..., seed: int | None = ...,
              progress: Callable[[int, int, int], Any] | None = ...) -> SweepResult: ...

def load(path: _Path) -> Model:
    """Reads and assembles a model file."""
def loads(text: str, origin: str = ..., base_dir: _Path = ...) -> Model:
    """Reads and assembles a model from YAML text."""
def read(path: _Path) -> Result:
    """Reads a result file written by ``luztar run -o FILE.h5``."""
def run(model: Model | _Path, *, t_start: float = ..., t_end: float = ..., output_step: float = ...,
        **simulation: Any) -> Result:
    """Runs a model (a Model or a model file)."""

class Snapshot:
    """The full state of a Simulator at one time."""
    @property
    def time(self) -> float: ...

class InputId:
    @property
    def index(self) -> int: ...

class OutputId:
    @property
    def index(self) -> int: ...

class Simulator:
    """Steps a model from a host loop (the C++ luztar::Simulator)."""
    model: Model
    def __init__(self, model: Model) -> None: ...
    def input(self, name: str) -> InputId: ...
    def set_input(self, input: InputId | str, value: float) -> None: ...
    def input_value(self, input: InputId | str) -> float: ...
    def output(self, name: str) -> OutputId: ...
    def value(self, output: OutputId | str) -> float: ...
    def advance_to(self, t: float) -> str: ...
    @property
    def time(self) -> float: ...
    @property
    def message(self) -> str: ...
    @property
    def angles(self) -> npt.NDArray[np.float64]: ...
    @property
    def velocities(self) -> npt.NDArray[np.float64]: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def events(self) -> np.ndarray: ...
    def snapshot(self) -> Snapshot: ...
    def restore(self, snapshot: Snapshot) -> None: ...

class SweepResult:
    """The table of a sweep, one entry per run."""
    parameters: dict[str, np.ndarray]
    metrics: dict[str, npt.NDArray[np.float64]]
    units: dict[str, str]
    status: np.ndarray
    message: list[str]
    wall_time: npt.NDArray[np.float64]
    def __init__(self, d: dict[str, Any]) -> None: ...
    def __len__(self) -> int: ...

def sweep(model: Model | _Path, parameters: Mapping[str, Any] | None = ..., metrics: Mapping[str, Any] | None = ...,
          *, threads: int = ..., samples: int | None = ..., seed: int | None = ...,
          progress: Callable[[int, int, int], Any] | None = ...) -> SweepResult:
    """Runs a parameter sweep and returns its table."""
