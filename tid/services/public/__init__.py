"""What anyone may see without an account: the public register, the districts' money, open data
and the verification of documents. Every value such a page, feed or file shows passes through
:mod:`tid.services.public.declared`, the one declaration of what the law makes public."""
