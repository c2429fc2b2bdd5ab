"""A municipality's register as feeds anyone may subscribe to: an Atom feed (RFC 4287) of its
new petitions, steps and ordinances, and an iCalendar (RFC 5545) of its petitions' statutory
deadlines. Both say only what the public register says; the page's addresses come from the
caller (the web, from the installation's ``BASE_URL``, never from the request's ``Host``), the
words in the reader's language."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time
from xml.etree import ElementTree as ET

from sqlmodel import Session

from tid.rules.messages import Message, render
from tid.services.petitions import FeedEvent, ical_document, uid_domain
from tid.services.public import register

ATOM = "http://www.w3.org/2005/Atom"


def _instant(day: date) -> str:
    return datetime.combine(day, time(12), tzinfo=UTC).isoformat().replace("+00:00", "Z")


def atom_feed(
    *,
    session: Session,
    municipality_id: int,
    today: date,
    lang: str,
    feed_url: str,
    page_url: str,
    petition_url: Callable[[int], str],
    most: int = 200,
) -> str | None:
    """The municipality's Atom feed, its latest ``most`` items (None: no such municipality)."""
    found = register.municipality(session=session, municipality_id=municipality_id)
    if found is None:
        return None
    items = register.news(session=session, municipality_id=municipality_id, today=today)[:most]
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed", {"xml:lang": lang})
    title = Message("Petitions and ordinances: %(municipality)s", municipality=found["name"])
    ET.SubElement(feed, f"{{{ATOM}}}title").text = render(title, lang)
    ET.SubElement(feed, f"{{{ATOM}}}id").text = feed_url
    ET.SubElement(feed, f"{{{ATOM}}}link", {"rel": "self", "href": feed_url})
    ET.SubElement(feed, f"{{{ATOM}}}link", {"rel": "alternate", "href": page_url})
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = _instant(items[0].day if items else today)
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = found["name"]
    for item in items:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        url = petition_url(item.petition_id)
        ET.SubElement(entry, f"{{{ATOM}}}id").text = f"{url}#{item.uid}"
        heading = Message(
            "%(step)s: %(district)s", step=Message(item.title), district=item.district_name
        )
        ET.SubElement(entry, f"{{{ATOM}}}title").text = render(heading, lang)
        ET.SubElement(entry, f"{{{ATOM}}}updated").text = _instant(item.day)
        ET.SubElement(entry, f"{{{ATOM}}}link", {"rel": "alternate", "href": url})
    body: str = ET.tostring(feed, encoding="unicode", xml_declaration=False)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def deadlines_calendar(
    *,
    session: Session,
    municipality_id: int,
    today: date,
    lang: str,
    stamp: datetime,
    base_url: str,
) -> str | None:
    """The iCalendar of every statutory deadline of the municipality's petitions (met,
    missed or running), in ``lang`` (None: no such municipality); its UIDs are the
    installation's (``base_url``, :func:`~tid.services.petitions.uid_domain`)."""
    domain = uid_domain(base_url)
    found = register.municipality(session=session, municipality_id=municipality_id)
    if found is None:
        return None
    events = []
    for record, deadline in register.public_deadlines(
        session=session, municipality_id=municipality_id, today=today
    ):
        petition = record.petition
        summary = Message(
            "%(clock)s: %(district)s (%(municipality)s)",
            clock=Message(deadline["label"]),
            district=petition["district_name"],
            municipality=record.municipality,
        )
        description = Message(
            "%(explanation)s. %(citation)s.",
            explanation=deadline["explanation"],
            citation=deadline["citation"],
        )
        events.append(
            FeedEvent(
                uid=f"tid-public-petition-{petition['id']}-{deadline['kind']}@{domain}",
                day=deadline["due"],
                summary=render(summary, lang),
                description=render(description, lang),
            )
        )
    name = render(
        Message("Petitions' deadlines: %(municipality)s", municipality=found["name"]), lang
    )
    return ical_document(events, stamp=stamp, name=name)
