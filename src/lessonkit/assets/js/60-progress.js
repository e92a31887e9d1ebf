/* lessonkit progress: the reader's path across lessons, kept in this browser only.
   Each page carries <script id="lk-path"> (lessonkit.path: the path's lessons, their quiz ids,
   the site's root), read on each page view once the page is parsed, wherever the host put
   lessonkit.js. Progress is one localStorage entry per site, keyed by the path the site is
   served under, so two sites on one host do not mix. A lesson is done when all its quizzes are
   right (30-quiz.js sends "lessonkit:quiz-score") or when marked by hand; a record made against
   other quiz ids says the quiz changed. Any script of the origin can write the entry: a record
   is kept only in the shape written here, anything else starts afresh. Without storage (or
   without the path data) nothing changes. */
(() => {
  const store = (() => {
    try {
      localStorage.setItem("lessonkit:probe", "1");
      localStorage.removeItem("lessonkit:probe");
      return localStorage;
    } catch {
      return null;
    }
  })();
  const plain = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
  const count = (x) => (Number.isSafeInteger(x) && x >= 0 ? x : 0);
  const el = (tag, props = {}, ...kids) => {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...kids);
    return node;
  };

  let path = null; // the page's path data, read again when the page's <script> is another
  function current() {
    const source = document.getElementById("lk-path");
    if (!store || !source) return null;
    if (path?.source !== source) {
      try {
        const data = JSON.parse(source.textContent);
        const base = new URL(data.root, location.href);
        const lessons = data.lessons.map((l) => ({ ...l, path: new URL(l.url, base).pathname }));
        path = { source, base, lessons, key: `lessonkit:progress:${base.pathname}` };
      } catch {
        return null;
      }
    }
    return path;
  }
  const lessonHere = () => current()?.lessons.find((l) => l.path === location.pathname);

  // What the entry holds, in the shape written here: a record of another shape is dropped.
  function load() {
    let state = null;
    try {
      state = JSON.parse(store.getItem(path.key));
    } catch {
      // Not JSON: start afresh.
    }
    const lessons = Object.create(null);
    for (const [url, r] of Object.entries(plain(state?.lessons) ? state.lessons : {})) {
      if (!plain(r) || typeof r.quizzes !== "string") continue;
      const { quizzes, done, right, total } = r;
      lessons[url] = { quizzes, done: done === true, right: count(right), total: count(total) };
    }
    const last = plain(state?.last) && typeof state.last.url === "string" ? state.last : null;
    const at = typeof last?.at === "string" ? last.at : undefined;
    return { lessons, last: last ? { url: last.url, at } : undefined };
  }
  function save(state) {
    try {
      store.setItem(path.key, JSON.stringify(state));
    } catch {
      // Storage full: progress is simply not kept.
    }
  }

  // A lesson's state: "done", "changed" (its quiz changed since), "started" or "new".
  function status(lesson, state = load()) {
    const r = state.lessons[lesson.url];
    if (!r) return { kind: "new", text: "not started" };
    if (r.quizzes !== lesson.quizzes) {
      return { kind: "changed", text: "the quiz changed since you took it: take it again" };
    }
    const score = r.total ? `${r.right} of ${r.total} quiz answers right` : "";
    if (r.done) return { kind: "done", text: `done${score && `, ${score}`}`, score: r };
    return { kind: "started", text: score ? `started, ${score}` : "started", score: r };
  }

  function update(here, change) {
    const state = load();
    const r = state.lessons[here.url] || {};
    if (r.quizzes !== here.quizzes) Object.assign(r, { done: false, right: 0, total: 0 });
    Object.assign(r, { quizzes: here.quizzes }, change);
    state.lessons[here.url] = r;
    save(state);
    render();
  }

  // A mark after each link to a lesson: a symbol and a short score, the words for screen readers.
  const SYMBOL = { done: "✓", changed: "↻", started: "…" };
  function mark(link, lesson, state) {
    link.querySelector(".lk-progress-mark")?.remove();
    const s = status(lesson, state);
    if (s.kind === "new") return;
    const short = s.score?.total ? ` ${s.score.right}/${s.score.total}` : "";
    const box = el("span", { className: `lk-progress-mark is-${s.kind}` });
    box.append(el("span", { ariaHidden: "true", textContent: ` ${SYMBOL[s.kind]}${short}` }));
    box.append(el("span", { className: "lk-visually-hidden", textContent: ` (${s.text})` }));
    link.append(box);
  }

  function marks(state) {
    for (const link of document.querySelectorAll(".md-nav__link[href], article a[href]")) {
      const url = new URL(link.href, location.href);
      if (url.hash && link.closest(".md-nav")) continue; // the page's own table of contents
      const lesson = path.lessons.find((l) => l.path === url.pathname);
      if (lesson && !link.closest(".lk-progress")) mark(link, lesson, state);
    }
  }

  // On a lesson: its state in a live region, "Mark as done", and the next lesson.
  function lessonBox(here) {
    const box = el("section", { className: "lk-progress", ariaLabel: "Your progress" });
    const line = el("p", { className: "lk-progress__status" });
    line.setAttribute("role", "status");
    const button = el("button", { type: "button", className: "md-button lk-progress__mark" });
    button.textContent = "Mark this lesson as done";
    button.addEventListener("click", () => {
      update(here, { done: button.getAttribute("aria-pressed") !== "true" });
    });
    box.append(line, button);
    const next = path.lessons[path.lessons.indexOf(here) + 1];
    if (next) box.append(el("p", {}, "Next: ", el("a", { href: next.path, textContent: next.title })));
    const after = document.querySelector("article .lk-quiz-result") || null;
    const article = document.querySelector("article");
    if (after) after.after(box);
    else article?.append(box);
    return (state) => {
      const s = status(here, state);
      line.textContent = `This lesson: ${s.text}.`;
      button.setAttribute("aria-pressed", String(s.kind === "done"));
    };
  }

  // On the home page: how far along, where to resume, and a reset. It goes at the end of the
  // article: added below the title once the script runs, it pushed the whole page down.
  function homeBox() {
    const { key, lessons } = path;
    const box = el("section", { className: "lk-progress lk-progress--home" });
    box.setAttribute("aria-labelledby", "lk-progress-title");
    const title = el("h2", { id: "lk-progress-title", textContent: "Your progress" });
    const line = el("p", { className: "lk-progress__status" });
    line.setAttribute("role", "status");
    const resume = el("p", { className: "lk-progress__resume" });
    const reset = el("button", { type: "button", className: "md-button" });
    reset.textContent = "Reset progress";
    reset.addEventListener("click", () => {
      store.removeItem(key);
      for (const k of Object.keys(store)) {
        if (lessons.some((l) => k.startsWith(`lessonkit:quiz:${l.path}#`))) store.removeItem(k);
      }
      render();
      line.textContent = "Progress reset: no lesson is marked done.";
    });
    const note = el("p", { className: "lk-progress__note" });
    note.textContent = "Kept in this browser only; nothing is sent anywhere.";
    box.append(title, line, resume, reset, note);
    document.querySelector("article")?.append(box);
    return (state) => {
      const done = lessons.filter((l) => status(l, state).kind === "done").length;
      line.textContent = `${done} of ${lessons.length} lessons done.`;
      const last = lessons.find((l) => l.url === state.last?.url);
      const next = lessons.find((l) => status(l, state).kind !== "done");
      const go = last || next;
      resume.replaceChildren();
      if (!go) return;
      const href = go.path + (last && state.last.at ? `#${state.last.at}` : "");
      const words = last ? "Resume where you left off: " : "Start the path: ";
      resume.append(words, el("a", { href, textContent: go.title, className: "lk-progress__go" }));
    };
  }

  let draw = null;
  function render() {
    const state = load();
    marks(state);
    draw?.(state);
  }

  // The page's score from the quiz; a lesson is done once every quiz on it is right.
  document.addEventListener("lessonkit:quiz-score", ({ detail }) => {
    const here = lessonHere();
    if (!here || !detail.answered) return;
    const all = detail.right === detail.total;
    update(here, all ? { right: detail.right, total: detail.total, done: true } : detail);
  });

  lessonkit.onPage(() => {
    if (!current() || document.querySelector(".lk-progress")) return;
    const here = lessonHere();
    draw = null;
    if (here) draw = lessonBox(here);
    else if (path.base.pathname === location.pathname) draw = homeBox();
    if (here) {
      const state = load();
      state.last = { url: here.url };
      save(state);
    }
    render();
  });
  // Where to resume: the last heading scrolled past, when the reader leaves a lesson.
  addEventListener("pagehide", () => {
    const here = lessonHere();
    if (!here) return;
    const heads = [...document.querySelectorAll("article :is(h2, h3)[id]")];
    const passed = heads.filter((h) => h.getBoundingClientRect().top < 80).pop();
    const state = load();
    state.last = { url: here.url, at: passed?.id };
    save(state);
  });
  addEventListener("storage", (event) => current() && event.key === path.key && render());
})();
