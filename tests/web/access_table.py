"""Who may reach each route: every endpoint of ``app.url_map`` must be listed here.

``PUBLIC`` means everyone, logged in or not. Otherwise the set of roles that may reach it;
every other role gets 403 and an anonymous visitor is sent to log in (401 under /api/).
Sample values fill the route's variables; an allowed role may still get 404 for a record
that does not exist, never 401/403.
"""

from __future__ import annotations

PUBLIC = "public"
ADMIN = "admin"
CLERK = "clerk"
ASSOCIATION = "association"
AUDITOR = "auditor"
EVERY_ROLE = frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR})

ACCESS: dict[str, str | frozenset[str]] = {
    "static": PUBLIC,
    "auth.login": PUBLIC,
    "auth.logout": EVERY_ROLE,
    "auth.set_language": PUBLIC,
    # the second factor and its enrolment answer only to a pending sign-in
    "auth.second_factor": PUBLIC,
    "auth.enrol": PUBLIC,
    "auth.forgot": PUBLIC,
    "auth.reset": PUBLIC,
    "auth.profile": EVERY_ROLE,
    "auth.change_password": EVERY_ROLE,
    "auth.two_factor_setup": EVERY_ROLE,
    "auth.recovery_codes": EVERY_ROLE,
    "auth.two_factor_off": EVERY_ROLE,
    "auth.end_session": EVERY_ROLE,
    "auth.end_all_sessions": EVERY_ROLE,
    "main.home": PUBLIC,
    "main.audit_trail": frozenset({ADMIN, AUDITOR}),
    # The statute calculators: public, stateless computations (tid/web/calc.py, api.py).
    "calc.index": PUBLIC,
    "calc.parameters": PUBLIC,
    "calc.form": PUBLIC,
    "calc.download_csv": PUBLIC,
    "calc.download_pdf": PUBLIC,
    # the project's readings of the law, which the calculators' citations link to
    "readings.index": PUBLIC,
    "api.calculators_list": PUBLIC,
    "api.calculate": PUBLIC,
    "api.parameters": PUBLIC,
    "api.reform": PUBLIC,
    # saving a reform through the API, as on the web, needs a login
    "api.save_reform": EVERY_ROLE,
    # Reforms: a saved one is public policy text at its address; writing one needs a login.
    "reforms.index": PUBLIC,
    "reforms.new": EVERY_ROLE,
    "reforms.show": PUBLIC,
    "reforms.note": PUBLIC,
    "reforms.fund": PUBLIC,
    "reforms.compared_download": PUBLIC,
    "reform_try.editor": PUBLIC,
    "reform_try.download": PUBLIC,
    # Every district in the open: the public register, pages, feeds and open data
    # (tid/web/public_pages.py), read only through tid/services/public/declared.py.
    "public.index": PUBLIC,
    "public.district": PUBLIC,
    "public.year": PUBLIC,
    "public.municipality": PUBLIC,
    "public.petition": PUBLIC,
    "public.feed": PUBLIC,
    "public.deadlines": PUBLIC,
    "public.owner_estimate": PUBLIC,
    "public.district_data": PUBLIC,
    "public.all_data": PUBLIC,
    "public.published_document": PUBLIC,
    "public_api.index": PUBLIC,
    "public_api.table": PUBLIC,
    "public_api.openapi": PUBLIC,
    # when a district's fiscal years become public: its association, its clerk, the admin
    "public_publishing.years": frozenset({ADMIN, CLERK, ASSOCIATION}),
    "public_publishing.choose": frozenset({ADMIN, CLERK, ASSOCIATION}),
    "public_publishing.publish_document": frozenset({ADMIN, CLERK, ASSOCIATION}),
    "public_publishing.withdraw_document": frozenset({ADMIN, CLERK, ASSOCIATION}),
    "petitions.dashboard": frozenset({ADMIN, CLERK, AUDITOR}),
    "petitions.deadlines_pdf": frozenset({ADMIN, CLERK, AUDITOR}),
    "petitions.new": frozenset({ADMIN, CLERK}),
    "petitions.show": frozenset({ADMIN, CLERK, AUDITOR}),
    "petitions.finding": frozenset({ADMIN, CLERK}),
    "petitions.ordinance": frozenset({ADMIN, CLERK}),
    "petitions.step": frozenset({ADMIN, CLERK}),
    "petitions.correct": frozenset({ADMIN, CLERK}),
    "petitions.calendar_settings": frozenset({ADMIN, CLERK, AUDITOR}),
    "petitions.calendar_token": frozenset({ADMIN, CLERK, AUDITOR}),
    # The formula studio of a petition: its readers and the association of the district the
    # petition is about try formulas (another district's association: 403, in
    # tests/web/test_studio.py); only the petition's writers save.
    "studio.studio_page": EVERY_ROLE,
    "studio.show": EVERY_ROLE,
    "studio.report": EVERY_ROLE,
    "studio.amounts": EVERY_ROLE,
    "petitions.calendar_revoke": frozenset({ADMIN, CLERK, AUDITOR}),
    # the secret in the URL stands for the user; a wrong one is 404
    "petitions.calendar_feed": PUBLIC,
    # The legislature's file (tid/web/petition_files.py): the petitions' readers read it and
    # ask the CRIM letter; its writers record the publication and make a scan searchable; a
    # public version is public.
    "petition_files.file": frozenset({ADMIN, CLERK, AUDITOR}),
    "petition_files.document": frozenset({ADMIN, CLERK, AUDITOR}),
    "petition_files.download": frozenset({ADMIN, CLERK, AUDITOR}),
    "petition_files.thumbnail": frozenset({ADMIN, CLERK, AUDITOR}),
    "petition_files.search": frozenset({ADMIN, CLERK, AUDITOR}),
    "petition_files.crim": frozenset({ADMIN, CLERK, AUDITOR}),
    "petition_files.publication": frozenset({ADMIN, CLERK}),
    "petition_files.recognize": frozenset({ADMIN, CLERK}),
    "petition_files.public_download": PUBLIC,
    # The property roll and billing (tid/web/roll.py): associations only their district.
    "roll.districts": EVERY_ROLE,
    "roll.district": EVERY_ROLE,
    "roll.properties": EVERY_ROLE,
    "roll.property_detail": EVERY_ROLE,
    "roll.upload": frozenset({ADMIN, ASSOCIATION}),
    "roll.preview": frozenset({ADMIN, ASSOCIATION}),
    "roll.commit": frozenset({ADMIN, ASSOCIATION}),
    "roll.check": frozenset({ADMIN, ASSOCIATION}),
    "roll.billing_new": frozenset({ADMIN, ASSOCIATION}),
    "roll.billing_run": EVERY_ROLE,
    # The roll's yearly check: the association answers and signs; every role reads.
    "roll_check.check": EVERY_ROLE,
    "roll_check.changes_csv": EVERY_ROLE,
    "roll_check.correction_file": EVERY_ROLE,
    "roll_check.statement_pdf": EVERY_ROLE,
    "roll_check.answer": frozenset({ADMIN, ASSOCIATION}),
    "roll_check.settings": frozenset({ADMIN, ASSOCIATION}),
    "roll_check.import_corrections": frozenset({ADMIN, ASSOCIATION}),
    "roll_check.sign": frozenset({ADMIN, ASSOCIATION}),
    "admin.users_list": frozenset({ADMIN}),
    "admin.users_new": frozenset({ADMIN}),
    "admin.users_set_active": frozenset({ADMIN}),
    "admin.users_force_reset": frozenset({ADMIN}),
    "admin.users_two_factor_off": frozenset({ADMIN}),
    "admin.lockouts": frozenset({ADMIN}),
    "admin.lockout_lift": frozenset({ADMIN}),
    "admin.installation": frozenset({ADMIN}),
    "admin.installation_checks": frozenset({ADMIN}),
    # the special account (21 LPRA § 6653(6), (8))
    "account.districts": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.dashboard": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.payments_page": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.payments_import": frozenset({ADMIN, ASSOCIATION}),
    "account.reverse": frozenset({ADMIN, ASSOCIATION}),
    "account.journal": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.expenditures_page": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.purposes": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.purpose_active": frozenset({ADMIN, ASSOCIATION}),
    "account.bank": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    # the year's budget: read by who reads the account, written by who writes it
    "account.budget": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.budget_actual": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.budget_actual_csv": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.budget_approve": frozenset({ADMIN, ASSOCIATION}),
    "account.budget_carry_over": frozenset({ADMIN, ASSOCIATION}),
    "account.budget_report": frozenset({ADMIN, ASSOCIATION}),
    "account.budget_settle": frozenset({ADMIN, ASSOCIATION}),
    # moving in: the district's opening position, loaded by who writes its account
    "account.aboard_page": frozenset({ADMIN, ASSOCIATION}),
    "account.aboard_preview": frozenset({ADMIN, ASSOCIATION}),
    "account.aboard_reverse": frozenset({ADMIN, ASSOCIATION}),
    "account.delinquency": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.delinquency_csv": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.delinquency_pdf": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.property_liens": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.lien_certificate": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.property_payoff": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.issued_document": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.issued_pdf": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.issue_release": frozenset({ADMIN, ASSOCIATION}),
    "account.lien_record": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.property_owners": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "closing_api.payoff": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "closing_api.issued_document": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    # Anyone checks a document issued about a property by its code (no owner on it).
    "verification.index": PUBLIC,
    "verification.document": PUBLIC,
    # The owner's account of a property their codes opened (the portal's session says which).
    "owner_account.account": PUBLIC,
    "owner_account.document": PUBLIC,
    "account.apply_credit": frozenset({ADMIN, ASSOCIATION}),
    "account.statement": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.statement_csv": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.statement_pdf": frozenset({ADMIN, CLERK, ASSOCIATION, AUDITOR}),
    "account.year_lock": frozenset({ADMIN}),
    "leaving.record_zip": frozenset({ADMIN, ASSOCIATION}),
    "leaving.record_download": frozenset({ADMIN, ASSOCIATION}),
    # certified-mail notices (21 LPRA § 6653(5)); each route checks the district's scope
    "notices.dashboard": EVERY_ROLE,
    "notices.batch_new": frozenset({ADMIN, ASSOCIATION}),
    "notices.batch_view": EVERY_ROLE,
    "notices.batch_print": EVERY_ROLE,
    "notices.batch_manifest": EVERY_ROLE,
    "notices.prepare_manifest": EVERY_ROLE,
    "notices.batch_articles": frozenset({ADMIN, ASSOCIATION}),
    "notices.notice_article": frozenset({ADMIN, ASSOCIATION}),
    "notices.batch_mail": frozenset({ADMIN, ASSOCIATION}),
    "notices.batch_fees": frozenset({ADMIN, ASSOCIATION}),
    "notices.deliveries": frozenset({ADMIN, ASSOCIATION}),
    "notices.notice_remail": frozenset({ADMIN, ASSOCIATION}),
    "notices.notice_pdf": EVERY_ROLE,
    # the owners' portal: public; the notice number and access code open one owner's notices
    "portal.index": PUBLIC,
    "portal.notices": PUBLIC,
    "portal.download": PUBLIC,
    "portal.leave": PUBLIC,
    # the owner's email for the notices: the portal's session (the codes) opens the page;
    # the confirmation and removal links carry their own unguessable token
    "portal_email.settings": PUBLIC,
    "portal_email.remove": PUBLIC,
    "portal_email.confirm": PUBLIC,
    "portal_email.stop": PUBLIC,
    # background jobs: each user sees the jobs of the districts they may see (tid/web/jobs.py)
    "jobs.index": EVERY_ROLE,
    "jobs.show": EVERY_ROLE,
    "jobs.status_json": EVERY_ROLE,
    "jobs.document": EVERY_ROLE,
    "jobs.prepare_pdf": EVERY_ROLE,
    # health probes for load balancers and orchestrators: JSON, no secrets
    "jobs.healthz": PUBLIC,
    "jobs.readyz": PUBLIC,
}

# Sample values for route variables, by variable name.
SAMPLE_VALUES: dict[str, str] = {
    "filename": "tid.css",
    "code": "en",
    "entity_type": "petition",
    "entity_id": "1",
    "action": "study",
    "token": "not-a-token",
    "fiscal_year": "2026-27",
    "which": "statement",
    "reform_id": "not-a-reform",
    "municipality_id": "1",
    "petition_id": "1",
    "path": "districts",
}
