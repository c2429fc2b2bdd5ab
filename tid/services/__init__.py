"""Services: each public function is one thing a user does. They take ``*, session``,
call the rules, write, and return a result; they never touch the request."""
