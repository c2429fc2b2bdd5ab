"""Services: each public function is one thing a user does. They take ``*, session``,
call the rules, write, and return a result; they never touch the request."""

# Every write to a district's public figures moves its public version (the public pages'
# caches), whichever process writes: the web, the command line or a background job.
from tid.services.public import versions as _public_versions

_public_versions.install()
