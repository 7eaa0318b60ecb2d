"""The API docs offline, in a real headless Chromium (Debian's, driven by Playwright): /docs (Swagger UI)
and /redoc load their scripts from the service itself (the fastapi-offline package), with every request
to anywhere but the service blocked, and show the routes."""
from __future__ import annotations

import pytest

from .chromium import launch, playwright_sync_api, require_chromium
from .conftest import Service

pytestmark = pytest.mark.service
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
sync_api = playwright_sync_api()


@pytest.fixture(scope="module")
def docs_service(tmp_path_factory):
    require_chromium()
    svc = Service(tmp_path_factory.mktemp("docs"), worker=False).start()
    yield svc
    svc.stop()


@pytest.fixture
def offline_page(docs_service):
    """A page whose requests off the service are aborted (and listed, so the test can say which)."""
    svc = docs_service
    with sync_api.sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            blocked: list[str] = []
            errors: list[str] = []

            def route(r):
                url = r.request.url
                if url.startswith((svc.url + "/", "blob:", "data:")):
                    r.continue_()
                else:
                    blocked.append(url)
                    r.abort()
            page.route("**/*", route)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, blocked, errors
        finally:
            browser.close()


def test_swagger_ui_offline(docs_service, offline_page):
    page, blocked, errors = offline_page
    page.goto(docs_service.url + "/docs")
    # the upload operation, rendered by Swagger UI from /openapi.json
    upload = page.locator(".opblock-post:has(.opblock-summary-path[data-path='/v1/models'])")
    upload.wait_for(state="visible", timeout=20000)
    assert "Upload Model" in upload.inner_text()
    paths = page.eval_on_selector_all(".opblock-summary-path", "els => els.map(e => e.dataset.path)")
    assert {"/v1/models", "/v1/compilations", "/healthz"} <= set(paths), paths
    # expanding it shows the multipart field the upload reads
    upload.locator(".opblock-summary").click()
    page.wait_for_selector(".opblock-post.is-open .parameters-col_name:has-text('file'), "
                           ".opblock-post.is-open .model:has-text('file')", timeout=10000)
    assert not blocked, blocked
    assert not errors, errors


def test_redoc_offline(docs_service, offline_page):
    page, blocked, errors = offline_page
    page.goto(docs_service.url + "/redoc")
    page.wait_for_selector("h2:has-text('Upload Model')", timeout=30000)
    assert page.locator("h2:has-text('Upload Model')").first.is_visible()
    menu = page.eval_on_selector_all("[role=menuitem] label, li[data-item-id] > label",
                                     "els => els.map(e => e.textContent)")
    assert any("Upload Model" in m for m in menu), menu
    # ReDoc's bundle has one fetch of its own that no option turns off: the "API docs by Redocly" logo
    # from its CDN; offline it fails and ReDoc drops the <img> (its onError), leaving the text link
    assert set(blocked) <= {REDOC_LOGO}, blocked
    page.wait_for_function("!document.querySelector('img[alt=\"redocly logo\"]')", timeout=10000)
    assert not errors, errors
