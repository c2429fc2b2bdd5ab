"""The browser harness's shared claims, without a browser: axe-core runs fully once per shape
and width in the whole run, whichever module's checker meets it first, and a check cut short
by a navigation gives its claim back (tests/browser/harness.py)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from tests.browser.harness import Checker, Claims, language_problems


@dataclass
class _Page:
    """What the checker reads of a page: its address, width and language."""

    url: str
    lang: str
    width: int = 390

    @property
    def viewport_size(self) -> dict[str, int]:
        return {"width": self.width, "height": 844}

    def wait_for_load_state(self) -> None:
        pass

    def screenshot(self, **_options: Any) -> None:
        pass

    def evaluate(self, script: str) -> Any:
        if script == "document.documentElement.lang":  # a failing page's photograph
            return self.lang
        if script == "document.documentElement.scrollHeight":
            return 844
        return {
            "page": self.width,
            "viewport": self.width,
            "regions": [],
            "lang": self.lang,
            "title": "Distrito",
            "langs": [],
        }


@dataclass
class _Result:
    response: dict[str, Any] = field(default_factory=lambda: {"violations": []})


@dataclass
class _Axe:
    """Records what it was asked to run; the first ``navigations`` runs meet a navigation."""

    navigations: int = 0
    runs: list[tuple[str, str]] = field(default_factory=list)

    def run(self, page: _Page, options: dict[str, Any]) -> _Result:
        if self.navigations:
            self.navigations -= 1
            raise PlaywrightError("Execution context was destroyed, most likely a navigation")
        assert "runOnly" not in options  # axe-core runs whole, or not at all
        self.runs.append((page.url, "full"))
        return _Result()


def _checker(claims: Claims, axe: _Axe, tmp_path: Path) -> Checker:
    return Checker(tmp_path, axe=axe, claims=claims)  # type: ignore[arg-type]


def test_only_the_first_of_many_processes_claiming_a_key_holds_it(tmp_path: Path) -> None:
    racers = [Claims(tmp_path / "axed") for _ in range(16)]  # each as another process's
    with ThreadPoolExecutor(8) as pool:
        won = list(pool.map(lambda claims: claims.claim(("axe", "/roll/N", 390)), racers))
    assert won.count(True) == 1
    assert racers[0].claim(("axe", "/roll/N", 1280))  # another width is another key
    racers[1].give_back(("axe", "/roll/N", 390))
    assert racers[2].claim(("axe", "/roll/N", 390))  # given back: claimed anew, once
    assert not racers[3].claim(("axe", "/roll/N", 390))


def test_a_shape_is_axed_once_in_the_run_at_each_width_and_its_language_read_on_every_page(
    tmp_path: Path,
) -> None:
    claims = Claims(tmp_path / "axed")
    first, second = _Axe(), _Axe()
    one, other = _checker(claims, first, tmp_path), _checker(claims, second, tmp_path)
    one.check(_Page("http://x/roll/1/properties?page=2", "es"), "roll", "es")  # type: ignore[arg-type]
    one.check(_Page("http://x/roll/2/properties?page=3", "es"), "roll", "es")  # type: ignore[arg-type]
    other.check(_Page("http://x/roll/3/properties?page=1", "es"), "roll", "es")  # type: ignore[arg-type]
    other.check(_Page("http://x/roll/3/properties?page=1", "en"), "roll", "en")  # type: ignore[arg-type]
    other.check(_Page("http://x/roll/3/properties?page=1", "en", 1280), "roll", "en")  # type: ignore[arg-type]
    assert first.runs == [("http://x/roll/1/properties?page=2", "full")]
    assert second.runs == [("http://x/roll/3/properties?page=1", "full")]
    assert one.checked == 2 and other.checked == 3
    assert one.problems == other.problems == []
    other.check(_Page("http://x/roll/4/properties?page=1", "en"), "roll", "es")  # type: ignore[arg-type]
    assert other.problems and "speaks 'en', not 'es'" in other.problems[0]
    assert second.runs == [("http://x/roll/3/properties?page=1", "full")]  # not axed again


def test_the_language_rules_read_the_root_the_title_and_every_named_language() -> None:
    page = {"lang": "es", "title": "Distrito", "langs": ["en", "es", "en-US"]}
    assert language_problems(page, "es") == []
    assert language_problems(page, "en") == ["the page speaks 'es', not 'en'"]
    assert language_problems({**page, "lang": ""}, "es") == ["the page speaks '', not 'es'"]
    assert language_problems({**page, "title": ""}, "es") == ["the page has no title"]
    assert language_problems({**page, "langs": ["en", "xx-yy", ""]}, "es") == [
        "an element's lang 'xx-yy' names no language",
        "an element's lang '' names no language",
    ]


def test_a_check_cut_short_by_a_navigation_gives_its_claim_back_and_axes_again(
    tmp_path: Path,
) -> None:
    claims = Claims(tmp_path / "axed")
    interrupted, later = _Axe(navigations=1), _Axe()
    page = _Page("http://x/jobs/7", "es")
    one = _checker(claims, interrupted, tmp_path)
    one.check(page, "job", "es")  # type: ignore[arg-type]
    assert interrupted.runs == [("http://x/jobs/7", "full")]  # the retry axed it, fully
    assert one.checked == 1 and one.problems == []
    _checker(claims, later, tmp_path).check(page, "job", "es")  # type: ignore[arg-type]
    assert later.runs == []  # held by the retry: not axed again in the run
