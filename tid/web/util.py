"""Small helpers shared by the blueprints."""

from __future__ import annotations

from datetime import date

from flask import Response, current_app

from tid import clock
from tid.documents.base import Document


def today() -> date:
    """Today in Puerto Rico, or the fixed ``TODAY`` of the configuration (tests, demos)."""
    return clock.today(current_app.config)


def send(document: Document, *, inline: bool = False) -> Response:
    """A document of record as the response: shown in the browser (``inline``) or
    downloaded under its file name."""
    disposition = "inline" if inline else "attachment"
    return Response(
        document.data,
        mimetype=document.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{document.filename}"'},
    )
