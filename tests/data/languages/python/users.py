"""A small user store: the Python fixture project of tests/test_languages.py."""

import re
from collections import defaultdict

EMAIL = re.compile(r"[^@]+@[^@]+")


class UserStore:
    """Users by id, with their e-mail addresses."""

    def __init__(self, default_domain="example.org"):
        self.users = {}
        self.by_domain = defaultdict(list)
        self.default_domain = default_domain

    def find_user_by_email(self, email_address):
        """Return the user whose e-mail address is given. None when there is none."""
        for user_id, user in self.users.items():
            if user.email == email_address:
                return user_id
        return None

    @classmethod
    def from_rows(cls, rows, *, strict=False):
        """Build a store from (id, email) rows."""
        store = cls()
        for row_id, email in rows:
            if strict and not EMAIL.match(email):
                raise ValueError("bad address: %s" % email)
            store.add_user(row_id, email)
        return store

    def add_user(self, user_id, email):
        # The domain is kept for counting users per domain.
        domain = email.split("@")[-1] or self.default_domain
        self.by_domain[domain].append(user_id)
        self.users[user_id] = email


def count_users_per_domain(store: UserStore) -> dict:
    """Count the users of each domain."""
    return {domain: len(ids) for domain, ids in store.by_domain.items()}


normalize_email = lambda address: address.strip().lower()


async def fetch_user_names(client, user_ids):
    '''Fetch the names of the given users.'''
    names = [await client.get_name(uid) for uid in user_ids]
    return [name for name in names if name is not None]
