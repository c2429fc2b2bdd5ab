"""The calculators as a person and a program use them (CALCULATORS.md).

The calculators themselves live in :mod:`tid.rules` and take one JSON document each
(:func:`tid.rules.calculators.run`). This package is what surrounds them:

- ``documents`` — a JSON document read (or refused with the line where it breaks), which
  calculators are in place, a result's citations;
- ``inputs`` — the inputs a person fills in (fields, tables of rows, groups) and the check of
  one value as typed;
- ``forms`` — each calculator's form (:data:`forms.FORMS`), its choices taken from the rules;
- ``csv_tables`` — the rows of a table read from an uploaded CSV file, every cell checked;
- ``results`` — any result document as plain tables for a page or a PDF, and as CSV.

Nothing here computes: the numbers come from the rules only, so the web, the API and the
command line cannot drift apart. Messages a person reads take a ``gettext`` callable (``_``)
so that the web shows them in the reader's language.
"""
