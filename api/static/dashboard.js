// The dashboard: keeps the token in sessionStorage, polls /v1/dashboard and redraws (no reload).
"use strict";
(function () {
  const KEY = "brickyard-token";
  const POLL_MS = 2000;
  const queueHistory = [];  // sampled by this page: queue depth over the time it has been open
  let timer = null;
  const $ = id => document.getElementById(id);

  function show(loggedIn) {
    $("login").classList.toggle("hidden", loggedIn);
    $("app").classList.toggle("hidden", !loggedIn);
  }

  function text(tag, value, cls) {
    const node = document.createElement(tag);
    node.textContent = value == null ? "" : String(value);
    if (cls) node.className = cls;
    return node;
  }

  function fillTable(id, rows, cells) {
    const body = $(id).querySelector("tbody");
    body.replaceChildren(...rows.map(r => {
      const tr = document.createElement("tr");
      for (const c of cells(r)) tr.appendChild(c);
      return tr;
    }));
  }

  async function openReport(url) {
    const r = await fetch(url, {headers: {Authorization: "Bearer " + sessionStorage.getItem(KEY)}});
    const html = await r.text();
    window.open(URL.createObjectURL(new Blob([html], {type: "text/html"})), "_blank");
  }

  function reportCell(job) {
    const td = document.createElement("td");
    if (job.report) {
      const a = text("a", "report");
      a.href = job.report;
      a.className = "report-link";
      a.addEventListener("click", ev => { ev.preventDefault(); openReport(job.report); });
      td.appendChild(a);
    }
    return td;
  }

  function render(d) {
    const C = window.BrickyardCharts;
    $("owner").textContent = d.owner;
    $("updated").textContent = "updated " + new Date().toLocaleTimeString();
    C.lineChart($("chart-compile"), d.compile_times.map(s => ({
      name: s.name, points: s.points.map(p => ({x: Date.parse(p.t), y: p.seconds,
                                                title: `${s.name}: ${p.seconds.toFixed(3)} s (job ${p.job})`}))})),
      {yLabel: "s", empty: "no compiles yet"});
    C.barChart($("chart-stages"), d.stages.map(s => ({label: s.stage, value: s.seconds})),
      {format: v => v.toFixed(3) + " s", empty: "no compiles yet"});
    const c = d.cache;
    $("hit-rate").textContent = c.hit_rate == null ? "-" : (c.hit_rate * 100).toFixed(1) + "%";
    C.barChart($("chart-cache"), [
      {label: "kernel hits", value: c.kernel_hits}, {label: "kernel misses", value: c.kernel_misses},
      {label: "from store", value: c.artifact_hits, title: "compilations answered from the store"}],
      {format: v => String(v)});
    $("queued").textContent = d.queue.queued;
    $("running").textContent = d.queue.running;
    $("workers").textContent = d.workers.length;
    queueHistory.push({x: Date.now(), queued: d.queue.queued, running: d.queue.running, workers: d.workers.length});
    if (queueHistory.length > 300) queueHistory.shift();
    C.lineChart($("chart-queue"), ["queued", "running", "workers"].map(k => ({
      name: k, points: queueHistory.map(h => ({x: h.x, y: h[k]}))})), {empty: "sampling..."});
    fillTable("projects", d.projects, p => [text("td", p.name), text("td", p.latest ? p.latest.commit.slice(0, 12) : "-"),
      text("td", p.latest ? p.latest.ref : ""),
      text("td", p.latest ? p.latest.verdict : "no commits", p.latest ? "verdict-" + p.latest.verdict : "")]);
    fillTable("recent", d.recent, j => [text("td", j.id.slice(0, 12)), text("td", j.model), text("td", j.target),
      text("td", j.state + (j.from_store ? " (stored)" : ""), "state-" + j.state),
      text("td", j.compile_seconds == null ? "" : j.compile_seconds.toFixed(2)), reportCell(j)]);
    fillTable("failures", d.failures, j => [text("td", j.id.slice(0, 12)), text("td", j.model), text("td", j.target),
      text("td", j.error, "state-failed")]);
    document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
  }

  async function poll() {
    const token = sessionStorage.getItem(KEY);
    if (!token) { show(false); return; }
    try {
      const r = await fetch("/v1/dashboard", {headers: {Authorization: "Bearer " + token}});
      if (r.status === 401) {
        sessionStorage.removeItem(KEY);
        $("error").textContent = "that token was refused";
        stop(); show(false); return;
      }
      if (!r.ok) throw new Error("HTTP " + r.status);
      show(true);
      render(await r.json());
    } catch (e) {
      $("updated").textContent = "update failed: " + e.message;
    }
  }

  function start() { stop(); poll(); timer = setInterval(poll, POLL_MS); }
  function stop() { if (timer) clearInterval(timer); timer = null; }

  document.addEventListener("DOMContentLoaded", () => {
    $("login").addEventListener("submit", ev => {
      ev.preventDefault();
      sessionStorage.setItem(KEY, $("token").value.trim());
      $("error").textContent = "";
      start();
    });
    $("logout").addEventListener("click", () => { sessionStorage.removeItem(KEY); stop(); show(false); });
    if (sessionStorage.getItem(KEY)) start(); else show(false);
  });
})();
