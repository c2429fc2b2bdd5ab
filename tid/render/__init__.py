"""Drawing the documents the app issues: PDF and SVG, from values to bytes and markup.

- :mod:`tid.render.pdf` — a Jinja template of ``templates/pdf/`` rendered by WeasyPrint as
  PDF/A-2a (the reports, certificate and statement);
- :mod:`tid.render.pdfa` — PDF/A-2u for the documents assembled with pypdf;
- :mod:`tid.render.notice` — the certified-mail notices of 21 LPRA § 6653(5), fast, in two
  layers (:mod:`tid.render.layers`) with the faces of :mod:`tid.render.fonts` and the QR code
  of :mod:`tid.render.qr`;
- :mod:`tid.render.manifest` — the PS Form 3877 manifest of a notice run;
- :mod:`tid.render.charts` and :mod:`tid.render.account_charts` — the geometry of the
  calculators' and the special account's SVG charts (the markup is in templates).

Nothing here queries the database: callers pass the values.
"""
