"""The tests mirror ``tid/``: a module with logic (:data:`LOGIC` statements or more in its
functions) has its test module at the mirrored path — ``tid/services/roll/columns.py`` →
``tests/services/roll/test_columns.py`` — so the tests of a module are found where its name
says.

The modules still tested through another module are listed below, each with the test module
that covers it and a word that must stand in that module (an import of it, the command it
runs, the address of its pages): the list only shrinks — a listed module that now has its
mirror fails, as does one whose covering test no longer names it."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source_trees import syntax_tree

ROOT = Path(__file__).resolve().parent.parent
LOGIC = 20

# module (under tid/) -> (the test module that covers it, a word it must contain)
TESTED_THROUGH: dict[str, tuple[str, str]] = {
    "cli/account.py": ("tests/services/account/test_payments.py", 'args=["account"'),
    "cli/calc.py": ("tests/test_cli_calc.py", '"calc"'),
    "cli/demo.py": ("tests/demo/test_load.py", 'args=["demo"'),
    "cli/documents.py": ("tests/demo/test_load.py", 'args=["document"'),
    "cli/processes.py": ("tests/test_worker_process.py", '"worker"'),
    "cli/roll.py": ("tests/services/roll/test_importing.py", 'args=["roll"'),
    "cli/users.py": ("tests/web/test_sign_in.py", 'args=["users"'),
    "cli/year_ahead.py": ("tests/services/budget/test_carry_over.py", 'args=["budget"'),
    "config.py": ("tests/web/test_two_factor.py", "from tid import config"),
    "db.py": ("tests/test_migrations.py", "tid.db"),
    "demo/bulk.py": ("tests/demo/test_large_district.py", "large_district"),
    "demo/legislature_documents.py": ("tests/demo/test_load.py", 'args=["demo"'),
    "demo/notices.py": ("tests/demo/test_load.py", 'args=["demo"'),
    "demo/petitions.py": ("tests/demo/test_load.py", 'args=["demo"'),
    "demo/roll.py": ("tests/services/roll/test_importing.py", "tid.demo"),
    "documents/account.py": ("tests/web/account/test_downloads.py", "/statement"),
    "documents/closing.py": ("tests/web/account/test_closing_pages.py", "payoff"),
    "documents/reform_note.py": ("tests/web/test_reform_pages.py", "note.pdf"),
    "documents/studio_reports.py": ("tests/web/test_studio.py", "/report.pdf"),
    "mail.py": ("tests/jobs/test_scheduled_jobs.py", "from tid import mail"),
    "models/column_types.py": ("tests/test_migrations.py", "tid.models"),
    "jobs/queue.py": ("tests/jobs/test_tasks.py", "tid.jobs.queue"),
    "render/account_charts.py": ("tests/web/account/test_blueprint.py", "/account"),
    "render/fonts.py": ("tests/render/test_concat.py", "fonts"),
    "render/layers.py": ("tests/render/test_notice_archival.py", "layers"),
    "render/manifest.py": ("tests/services/notices/test_mailing.py", "manifest"),
    "render/notice.py": ("tests/render/test_notice_pages.py", "tid.render"),
    "render/pdf.py": ("tests/web/test_calc.py", "tid.render"),
    "render/pdfa.py": ("tests/render/test_notice_archival.py", "pdfa"),
    "render/tagging.py": ("tests/render/test_notice_archival.py", "tagged"),
    "render/public_charts.py": ("tests/web/test_public_pages.py", "<svg"),
    "render/qr.py": ("tests/web/test_portal.py", "qr"),
    "rules/calculators/inputs.py": ("tests/web/test_calc.py", "inputs"),
    "rules/file_text.py": ("tests/rules/test_file_content.py", "file_text"),
    "rules/fund_compare.py": ("tests/rules/test_reform.py", "fund_compare"),
    "rules/imposts/tree.py": ("tests/web/test_calc_bounds.py", "tree"),
    "rules/messages.py": ("tests/rules/test_vocab.py", "tid.rules.messages"),
    "rules/periods.py": ("tests/demo/test_account.py", "tid.rules.periods"),
    "rules/reform_compare.py": ("tests/rules/test_reform.py", "reform_compare"),
    "rules/vocab/terms.py": ("tests/rules/test_vocab.py", "tid.rules.vocab"),
    "jobs/scheduler.py": ("tests/jobs/test_scheduled_jobs.py", "scheduler"),
    "services/account/account_reads.py": ("tests/web/account/test_blueprint.py", "/account"),
    "services/budget/page_reads.py": ("tests/web/account/test_budget_pages.py", "/budget"),
    "services/audit_trail/audit.py": ("tests/test_production.py", "tid.services"),
    "services/audit_trail/audit_words.py": ("tests/web/test_record_names.py", "/audit/"),
    "jobs/background_jobs.py": ("tests/jobs/test_tasks.py", "background_jobs"),
    "services/installation/backup.py": ("tests/web/test_hardening.py", "backup"),
    "services/billing/bill_pages.py": ("tests/web/test_roll_billing.py", "/roll"),
    "services/files/file_store.py": ("tests/web/test_petition_files.py", "archive_dir"),
    "services/limits/heavy_work.py": ("tests/web/test_calc_bounds.py", "heavy_work"),
    "services/closing/issued.py": ("tests/web/test_verification_pages.py", "/verificar/"),
    "services/ledger/accounts.py": ("tests/services/ledger/test_posting.py", "ledger"),
    "services/ledger/running.py": ("tests/services/ledger/test_balances.py", "running"),
    "services/liens/lien_register.py": ("tests/web/account/test_lien_records.py", "liens/"),
    "services/notices/contents.py": ("tests/services/notices/test_rendering.py", "contents"),
    "services/notices/deliveries.py": ("tests/services/notices/test_pages.py", "deliver"),
    "services/owners/owner_account.py": ("tests/web/test_owner_account.py", "/portal/account"),
    "services/auth/passwords.py": ("tests/web/test_passwords.py", "passwords"),
    "services/petitions/attachments.py": ("tests/web/test_petition_files.py", "attachments"),
    "services/petitions/deadlines.py": ("tests/web/test_petitions.py", "deadline"),
    "services/petitions/file_search.py": ("tests/web/test_petition_files.py", "file_search"),
    "services/petitions/parsing.py": ("tests/services/petitions/test_ordinance.py", "petitions"),
    "services/petitions/proofs.py": ("tests/web/test_petition_files.py", "proof"),
    "services/petitions/recognition.py": ("tests/web/test_petition_files.py", "recognize"),
    "services/owners/portal.py": ("tests/web/test_portal_security.py", "portal"),
    "services/public/feeds.py": ("tests/web/test_public_register.py", "novedades"),
    "services/public/open_data.py": ("tests/web/test_public_api.py", "datapackage"),
    "services/public/published_records.py": ("tests/web/test_public_documents.py", "documentos"),
    "services/public/publishing.py": ("tests/web/test_public_publishing.py", "publish"),
    "services/public/register.py": ("tests/web/test_public_register.py", "/publico/municipios"),
    "services/public/stored_figures.py": ("tests/services/public/test_district_figures.py", "kept"),
    "services/public/verification.py": ("tests/web/test_verification_pages.py", "/verificar/"),
    "services/public/versions.py": ("tests/web/test_public_publishing.py", "version"),
    "services/public/visits.py": ("tests/web/test_public_pages.py", "429"),
    "services/audit_trail/record_names.py": ("tests/web/test_record_names.py", "notice"),
    "services/reform_library.py": ("tests/web/test_reform_pages.py", "/reforms/"),
    "services/roll/read_back.py": ("tests/services/roll/test_importing.py", "roll"),
    "services/roll_check/answers.py": (
        "tests/services/roll_check/test_year_check.py",
        "answers.answer",
    ),
    "services/roll_check/billing_statement.py": (
        "tests/services/roll_check/test_year_check.py",
        "statement.sign",
    ),
    "services/roll_check/changes.py": (
        "tests/services/roll_check/test_year_check.py",
        "changes.import_roll",
    ),
    "services/roll_check/crim_file.py": (
        "tests/services/roll_check/test_year_check.py",
        "corrections.import_corrections",
    ),
    "services/roll_check/gate.py": (
        "tests/services/roll_check/test_year_check.py",
        "gate.open_count",
    ),
    "services/auth/sign_in.py": ("tests/web/test_sign_in.py", "sign_in"),
    "services/limits/throttle.py": ("tests/web/test_sign_in.py", "throttle"),
    "services/closing/transfers.py": ("tests/web/account/test_owner_pages.py", "owners"),
    "services/auth/two_factor.py": ("tests/web/test_two_factor.py", "two_factor"),
    "services/auth/users.py": ("tests/web/test_passwords.py", "users"),
    "services/account/year_locks.py": ("tests/services/test_keeping_data.py", "year_locks"),
    "web/account/delinquency.py": ("tests/web/account/test_property_liens.py", "/delinquency"),
    "web/account/fields.py": ("tests/web/account/test_payment_pages.py", "/account"),
    "web/account/statement.py": ("tests/web/account/test_downloads.py", "/statement"),
    "web/calc_guard.py": ("tests/web/test_calc_bounds.py", "calc_guard"),
    "web/closing_api.py": ("tests/web/account/test_closing_pages.py", "api/v1/account"),
    "web/errors.py": ("tests/web/test_fuzz_routes.py", "500"),
    "web/field_labels.py": ("tests/web/test_error_summary_walk.py", "data-error-summary"),
    "web/jobs.py": ("tests/jobs/test_tasks.py", "/jobs/"),
    "web/journal_labels.py": ("tests/web/account/test_journal.py", "/journal"),
    "web/portal_account.py": ("tests/web/test_owner_account.py", "/portal/account"),
    "web/roll.py": ("tests/web/test_roll_billing.py", "/roll"),
    "cli/setup.py": ("tests/test_setup.py", '"setup"'),
    "readers.py": ("tests/test_proc.py", "readers"),
    "rules/reform_checks.py": ("tests/rules/test_reform_never_crashes.py", "parse_reform"),
    "services/installation/checks.py": ("tests/test_setup.py", "installation import checks"),
    "services/installation/facts.py": ("tests/web/test_installation.py", "/admin/installation"),
    "services/installation/first_run.py": ("tests/test_setup.py", '"setup"'),
    "services/installation/round_trips.py": ("tests/test_setup.py", "round_trips"),
    "web/reform_cache.py": ("tests/web/test_reform_bounds.py", "reform_cache"),
    "cli/aboard.py": ("tests/services/aboard/test_command_line.py", '"aboard"'),
    "cli/app.py": ("tests/test_cli_calc.py", '"calc"'),
    "cli/district_record.py": ("tests/services/test_district_record.py", '"export"'),
    "services/aboard/booking.py": ("tests/services/aboard/test_loading.py", "aboard"),
    "services/aboard/file_checks.py": ("tests/services/aboard/test_loading.py", "aboard"),
    "services/aboard/kept_uploads.py": ("tests/web/account/test_aboard.py", "/aboard"),
    "services/aboard/position_files.py": ("tests/services/aboard/test_loading.py", "aboard"),
    "services/district_record/cells.py": ("tests/services/test_district_record.py", "record"),
    "services/district_record/export.py": ("tests/services/test_district_record.py", "record"),
    "services/district_record/intake.py": ("tests/services/test_district_record.py", "record"),
    "services/district_record/package.py": ("tests/services/test_district_record.py", "record"),
    "services/district_record/reading.py": ("tests/services/test_district_record.py", "record"),
    "services/district_record/tables.py": ("tests/services/test_district_record.py", "tables"),
    "services/district_record/writing.py": ("tests/services/test_district_record.py", "record"),
    "web/leaving.py": ("tests/web/test_district_record_download.py", "/account"),
    "services/petitions/errors.py": ("tests/services/petitions/test_ordinance.py", "petitions"),
    "web/reform_try.py": ("tests/web/test_reform_reader_language.py", "/reforms/try"),
}


def _statements_in_functions(path: Path) -> int:
    count = 0
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring
            count += sum(
                1
                for s in ast.walk(ast.Module(body=body, type_ignores=[]))
                if isinstance(s, ast.stmt)
            )
    return count


def _mirror(module: Path) -> Path:
    relative = module.relative_to(ROOT / "tid")
    return ROOT / "tests" / relative.parent / f"test_{relative.name}"


def _modules_with_logic() -> list[Path]:
    return [
        path
        for path in sorted((ROOT / "tid").rglob("*.py"))
        if path.name not in ("__init__.py", "__main__.py")
        and _statements_in_functions(path) >= LOGIC
    ]


def test_every_module_with_logic_has_its_mirrored_test_or_names_the_test_that_covers_it() -> None:
    unmirrored = {
        str(p.relative_to(ROOT / "tid")) for p in _modules_with_logic() if not _mirror(p).exists()
    }
    assert sorted(unmirrored - TESTED_THROUGH.keys()) == []
    assert sorted(TESTED_THROUGH.keys() - unmirrored) == [], "mirrored now: remove from the list"


def test_each_covering_test_still_names_what_it_covers() -> None:
    for module, (test, word) in TESTED_THROUGH.items():
        path = ROOT / test
        assert path.is_file(), (module, test)
        assert word in path.read_text(encoding="utf-8"), (module, test, word)


def test_the_count_of_statements_sees_functions_and_skips_docstrings(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        'X = 1\n\ndef f():\n    """Doc."""\n    if X:\n        return 1\n    return 2\n'
    )
    assert _statements_in_functions(source) == 3
