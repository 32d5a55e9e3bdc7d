"""``--format github``: GitHub Actions workflow commands, shown as annotations on the pull request.

One ``::error``/``::warning``/``::notice`` line per finding (info findings are notices), then a
plain summary line. Values are escaped as the runner expects (``%``, CR, LF; also ``:`` and ``,``
in properties), so analyzed code can never start a second command.
"""

from __future__ import annotations

from promptlint.config import Config
from promptlint.model import AnalysisResult, FileError, Finding, Severity
from promptlint.reporters.common import plural

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    loc = finding.location
    properties = [f"file={escape_property(loc.path)}", f"line={loc.line}", f"col={loc.column}"]
    if loc.end_line >= loc.line:
        properties.append(f"endLine={loc.end_line}")
    if loc.end_line == loc.line and loc.end_column > loc.column:
        properties.append(f"endColumn={loc.end_column}")
    cell = f" in cell {loc.cell}" if loc.cell is not None else ""  # a notebook: line within the cell
    properties.append(f"title={escape_property(f'promptlint {finding.rule} ({finding.name}){cell}')}")
    message = finding.message
    if finding.call_site.api:
        message += f"\nReaches {finding.call_site.api} at {finding.call_site.location.short()}."
    if finding.hint:
        message += f"\nFix: {finding.hint}"
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{escape_data(message)}"


def error_annotation(error: FileError) -> str:
    """A file that could not be analyzed is a warning; an internal error (a bug in promptlint,
    exit code 2) an error, so the job page shows why the step failed."""
    if error.internal:
        return (f"::error file={escape_property(error.path)},title=promptlint internal error (a bug in promptlint)::"
                f"{escape_data(error.message)}")
    return (f"::warning file={escape_property(error.path)},title=promptlint could not analyze this file::"
            f"{escape_data(error.message)}")


def render_github(result: AnalysisResult, config: Config) -> str:
    lines = [annotation(f) for f in result.findings]
    lines += [error_annotation(e) for e in result.errors]
    lines.append(f"promptlint: {plural(len(result.findings), 'finding')} in "
                 f"{plural(result.files_analyzed, 'Python file')}")
    return "\n".join(lines) + "\n"
