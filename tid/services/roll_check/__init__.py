"""The roll's yearly check — 21 LPRA § 6653(3)(b), (3)(d) (/readings#roll-yearly-check).

When a fiscal year's roll is imported over a district that had one the year before, each
change from last year's roll (tid/rules/roll_changes.py) is recorded with the impost of both
years under the ordinance's formula; the association accepts it or sends it back; the
sent-back ones go to the CRIM in a correction file whose answers are imported as corrections;
and once every change is answered, the association signs the verified billing statement. The
package, in that order:

- :mod:`.gate`: the district's setting, the unanswered count and what billing leaves out (what
  billing imports; it imports nothing of billing);
- :mod:`.changes`: the changes worked out (for a file's preview) and recorded (at its import);
- :mod:`.answers`: each change answered, the check's page, counts and CSV;
- :mod:`.crim_file`: the correction file for the CRIM and its answers imported;
- :mod:`.billing_statement`: the verified billing statement.

Nothing is re-exported here: billing imports :mod:`.gate`, which must load without the
modules that import billing.
"""
