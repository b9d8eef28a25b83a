"""The shared replay page (kw.viz.to_html, kwartet replay --html): self-contained, escaped,
and, opened in a real headless chromium, showing the library's own numbers at every move
it is stepped to with the slider and the arrow keys."""

from __future__ import annotations

import os
import re
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.cli import main
from kwartet_epistemic.viz.page import page_data
from kwartet_epistemic.viz.progress import narrate

EVIL = "</script><script>window.pwned=1</script>"
EVIL_CARD = "<img src=x onerror=window.pwned=2>"


def _random_game(deck: kw.Deck, players: list[str], seed: int) -> kw.Game:
    game = kw.Game.deal(deck, players, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        asks = game.legal_asks()
        game.play(asks[int(rng.integers(len(asks)))])
    return game


@pytest.fixture(scope="module")
def seeded() -> tuple[kw.Game, kw.viz.GameProgress]:
    game = _random_game(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=11)
    return game, kw.viz.game_progress(game, public=True)


def _evil_deck() -> kw.Deck:
    families = {f"Fam{i}": [f"c{i}{j}" for j in range(4)] for i in range(3)}
    families[EVIL] = [EVIL_CARD, "B&amp;", "'quote\"", "plain"]
    return kw.Deck.themed({"name": "evil <pack>", "families": families})


# ----- without a browser --------------------------------------------------------------


def test_page_is_self_contained(seeded, tmp_path):
    _, progress = seeded
    page = kw.viz.to_html(progress, tmp_path / "game.html")
    assert (tmp_path / "game.html").read_text(encoding="utf-8") == page
    lowered = page.lower()
    for external in ("http://", "https://", "//cdn", "@import", "url(", "<link", "<iframe"):
        assert external not in lowered, external
    assert not re.search(r"\b(src|href|srcset|action)\s*=", lowered)
    assert lowered.count("<script") == 2  # the JSON data and the inline script
    assert '<script type="application/json" id="data">' in page


def test_embedded_data_is_exact(seeded):
    game, progress = seeded
    data = page_data(progress)
    assert len(data["steps"]) == progress.n_steps + 1
    state = kw.knowledge(game)
    # the last step against a fresh epistemic state of the finished game ...
    last = data["steps"][-1]
    assert last["worlds"] == [str(state.count_worlds(p)) for p in game.players]
    # ... and the deal, whose counts pass 2**53: strings keep every digit
    deal = data["steps"][0]
    assert int(deal["public"]) == progress.public_worlds[0] > 2**53
    for v in range(len(game.players)):
        total = int(progress.worlds[3, v])
        for c in (0, 9, 31):
            for h in range(4):
                cell = data["steps"][3]["heat"][v][h][c]
                if progress.exposed[3, c]:
                    assert cell is None
                    continue
                exact = Fraction(int(progress.location_counts[3, v, c, h]), total)
                assert Fraction(cell) == exact
                assert float(exact) == pytest.approx(progress.probabilities[3, v, c, h])
    assert data["steps"][5]["lessons"] == narrate(progress, 5)


def test_injected_names_are_escaped():
    game = _random_game(_evil_deck(), ["A", "B", "C"], seed=3)
    page = kw.viz.to_html(game, title=EVIL + " & co")
    assert EVIL not in page and EVIL_CARD not in page
    assert "<img" not in page and "window.pwned=1</script>" not in page
    # the title is escaped as HTML, the data as JSON with no <, > or & at all
    assert "&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt; &amp; co" in page
    data_text = page.split('<script type="application/json" id="data">', 1)[1].split("</script>")[0]
    assert not set("<>&") & set(data_text)
    assert "\\u003cimg src=x onerror=window.pwned=2\\u003e" in data_text


@pytest.mark.parametrize("marker", ["%%SCRIPT%%", "%%STYLE%%", "%%DATA%%", "%%TITLE%%"])
def test_a_template_marker_in_the_title_stays_text(seeded, marker):
    _, progress = seeded
    page = kw.viz.to_html(progress, title=f"x {marker} y")
    assert page.count("<script>") == 1 and page.count("<style>") == 1
    assert f"<title>x {marker} y</title>" in page
    assert f'<h1 id="title">x {marker} y</h1>' in page
    # the page is exactly as long as with a plain title of the same length
    plain = kw.viz.to_html(progress, title="x " + "_" * len(marker) + " y")
    assert len(page) == len(plain)


def test_bad_input_is_a_kwartet_error(seeded, tmp_path):
    _, progress = seeded
    with pytest.raises(kw.KwartetError, match="to_html\\('game.json'\\): expected a Game"):
        kw.viz.to_html("game.json")  # type: ignore[arg-type]
    with pytest.raises(kw.KwartetError, match="step 999: expected a move number 0.."):
        kw.viz.to_html(progress, step=999)
    with pytest.raises(kw.KwartetError, match="step True"):
        kw.viz.to_html(progress, step=True)
    with pytest.raises(kw.KwartetError, match="title 5"):
        kw.viz.to_html(progress, title=5)  # type: ignore[arg-type]
    with pytest.raises(kw.KwartetError, match="is a folder"):
        kw.viz.to_html(progress, tmp_path)
    with pytest.raises(kw.KwartetError, match="does not exist"):
        kw.viz.to_html(progress, tmp_path / "nowhere" / "game.html")
    assert list(tmp_path.iterdir()) == []


def test_cli_replay_html(seeded, tmp_path, capsys):
    game, _ = seeded
    record = tmp_path / "game.json"
    game.save(record)
    page = tmp_path / "game.html"
    assert main(["replay", str(record), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert f"Wrote {page}" in out and "Game over" in out
    text = page.read_text(encoding="utf-8")
    assert "<title>Kwartet: game.json</title>" in text
    assert main(["replay", str(record), "--html", str(tmp_path / "no" / "x.html")]) == 2
    captured = capsys.readouterr()
    assert "does not exist" in captured.err and captured.out == ""


# ----- in headless chromium -----------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def browser():
    if os.environ.get("KWARTET_REQUIRE_BROWSER"):  # CI (.ci/run): a browser must be there
        assert CHROMIUM is not None, "no chromium; .ci/run installs it with apt-get"
        import playwright.sync_api as sync_api
    else:
        sync_api = pytest.importorskip("playwright.sync_api")
        if CHROMIUM is None:
            pytest.skip("no chromium on this machine (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def _open(browser, path: Path):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    return page, errors, requests


def _shown_step(page) -> int:
    return int(page.inner_text("#move-number"))


def _check_step(page, progress, step: int) -> None:
    assert _shown_step(page) == step
    assert page.input_value("#slider") == str(step)
    lessons = [li.inner_text() for li in page.query_selector_all("#narration li:not(.none)")]
    assert lessons == narrate(progress, step) if step else lessons == []
    line = page.inner_text("#line")
    assert progress.lines[step].split("\n")[0] in line
    for seat, player in enumerate(progress.players):
        count = int(progress.worlds[step, seat])
        table = page.inner_text(f'#table td.worlds[data-player="{player}"]')
        assert table.split(" ")[0].replace(",", "") == str(count)
        heading = page.inner_text(f'.heat h3 .worlds[data-player="{player}"]')
        assert heading.split(" ")[0].replace(",", "") == str(count)
        cards = page.inner_text(f'#table tr[data-player="{player}"] td.cards')
        assert int(cards) == int((progress.holder[step] == seat).sum())
    to_move = progress.to_move[step]
    marked = page.query_selector_all("#table tr.to-move")
    assert [row.get_attribute("data-player") for row in marked] == ([to_move] if to_move else [])
    # one heatmap cell: B's probability that C holds the card asked for (or 8♠)
    ask = progress.asks[step]
    card = ask.card if ask is not None else progress.deck.card("8S")
    cell = page.query_selector(
        f'td[data-viewer="B"][data-holder="C"][data-card="{card.symbol or card.code}"]'
    )
    assert cell is not None
    if progress.exposed[step, card.index]:
        assert cell.get_attribute("data-fraction") is None
        assert "quartet on the table" in cell.get_attribute("title")
        return
    exact = Fraction(
        int(progress.location_counts[step, 1, card.index, 2]), int(progress.worlds[step, 1])
    )
    assert Fraction(cell.get_attribute("data-fraction")) == exact
    assert float(cell.get_attribute("data-p")) == pytest.approx(float(exact), abs=5e-5)
    assert str(exact) in cell.get_attribute("title")
    shown = cell.inner_text()
    if exact == 1:
        assert shown == "●"
    elif exact >= Fraction(1, 200):
        assert int(shown) == round(float(exact) * 100)


def test_browser_steps_through_the_game(browser, seeded, tmp_path):
    game, progress = seeded
    path = tmp_path / "game.html"
    kw.viz.to_html(progress, path)
    page, errors, requests = _open(browser, path)
    try:
        _check_step(page, progress, 0)
        assert page.inner_text("#move-count") == str(progress.n_steps)
        # the slider, moved as a script would
        page.eval_on_selector(
            "#slider", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", "7"
        )
        _check_step(page, progress, 7)
        # the arrow keys, Home and End
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        _check_step(page, progress, 9)
        page.keyboard.press("ArrowLeft")
        _check_step(page, progress, 8)
        page.keyboard.press("End")
        _check_step(page, progress, progress.n_steps)
        page.keyboard.press("ArrowRight")  # stays on the last move
        _check_step(page, progress, progress.n_steps)
        assert "The game is over." in page.inner_text("#public")
        page.keyboard.press("Home")
        _check_step(page, progress, 0)
        page.keyboard.press("ArrowLeft")
        _check_step(page, progress, 0)
        # the slider, dragged with the mouse to about the middle, then the next button
        box = page.locator("#slider").bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
        middle = _shown_step(page)
        assert abs(middle - progress.n_steps / 2) <= 2
        _check_step(page, progress, middle)
        page.click("#next")
        _check_step(page, progress, middle + 1)
        # the public count of the deal passes 2**53 and is shown exactly
        page.keyboard.press("Home")
        assert f"{progress.public_worlds[0]:,}" in page.inner_text("#public")
        # the hands, on request
        page.check("#show-hands")
        hand = page.inner_text('#table tr[data-player="A"] .hand')
        assert hand.split() == [card.symbol for card in sorted(
            (progress.deck.cards[c] for c in np.flatnonzero(progress.holder[0] == 0)),
            key=lambda c: c.index)]  # fmt: skip
        assert errors == []
        assert all(url.startswith("file://") for url in requests), requests
    finally:
        page.close()


def test_browser_opens_at_the_address_and_runs_no_injected_script(browser, tmp_path):
    game = _random_game(_evil_deck(), ["A", "B", "C"], seed=3)
    progress = kw.viz.game_progress(game)
    path = tmp_path / "evil.html"
    kw.viz.to_html(progress, path, title=EVIL)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(path.as_uri() + "#move=2")
        assert _shown_step(page) == 2
        assert page.evaluate("window.pwned") is None
        assert page.query_selector_all("img") == []
        assert page.inner_text("#title") == EVIL
        assert page.title() == EVIL
        headers = page.eval_on_selector_all(".hm th.family", "els => els.map(e => e.textContent)")
        assert EVIL in headers
        labels = page.eval_on_selector_all(
            'td[data-viewer="A"][data-holder="B"]', "els => els.map(e => e.dataset.card)"
        )
        assert EVIL_CARD in labels and "B&amp;" in labels
        assert errors == []
    finally:
        page.close()


def test_browser_hides_the_true_holders_until_the_hands_are_shown(browser, seeded, tmp_path):
    """The outlines of the true holders give the deal away: drawn only with the hands."""
    game, progress = seeded
    path = tmp_path / "game.html"
    kw.viz.to_html(progress, path)
    page, errors, _ = _open(browser, path)
    try:
        for step in ("Home", "ArrowRight", "ArrowRight"):
            page.keyboard.press(step)
            assert page.query_selector_all(".hm td.truth") == []
            assert "true holder" not in " ".join(
                cell.get_attribute("title") or "" for cell in page.query_selector_all(".hm td")
            )
        page.check("#show-hands")
        held = int((progress.holder[_shown_step(page)] >= 0).sum())
        assert len(page.query_selector_all(".hm td.truth")) == held * len(progress.players)
        page.uncheck("#show-hands")
        assert page.query_selector_all(".hm td.truth") == []
        assert errors == []
    finally:
        page.close()


def test_browser_says_one_world_and_fits_a_phone(browser, tmp_path):
    """A player who knows the deal sees "1 world"; at 420 px nothing runs off the page."""
    game = _random_game(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=2)
    progress = kw.viz.game_progress(game, public=True)
    path = tmp_path / "small.html"
    kw.viz.to_html(progress, path)
    page = browser.new_page(viewport={"width": 420, "height": 800})
    try:
        page.goto(path.as_uri())
        page.keyboard.press("End")
        last = progress.n_steps
        for seat, player in enumerate(progress.players):
            heading = page.inner_text(f'.heat h3 .worlds[data-player="{player}"]')
            count = int(progress.worlds[last, seat])
            assert heading == (f"{count:,} world" if count == 1 else f"{count:,} worlds")
        assert any(int(n) == 1 for n in progress.worlds[last])  # the singular was shown
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
    finally:
        page.close()
