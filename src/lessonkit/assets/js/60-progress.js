/* lessonkit progress: the reader's path across lessons, kept in this browser only.
   Each page carries <script id="lk-path"> (lessonkit.path: the path's lessons, their quiz ids,
   the site's root). Progress is one localStorage entry per site, keyed by the path the site is
   served under, so two sites on one host do not mix. A lesson is done when all its quizzes are
   right (30-quiz.js sends "lessonkit:quiz-score") or when marked by hand; a record made against
   other quiz ids says the quiz changed. Without this script (or storage) nothing changes. */
(() => {
  const data = JSON.parse(document.getElementById("lk-path")?.textContent || "null");
  if (!data) return;
  const base = new URL(data.root, location.href);
  const KEY = `lessonkit:progress:${base.pathname}`;
  const store = (() => {
    try {
      localStorage.setItem(`${KEY}?`, "1");
      localStorage.removeItem(`${KEY}?`);
      return localStorage;
    } catch {
      return null;
    }
  })();
  if (!store) return;
  const lessons = data.lessons.map((l) => ({ ...l, path: new URL(l.url, base).pathname }));
  const here = lessons.find((l) => l.path === location.pathname);
  const load = () => {
    try {
      const state = JSON.parse(store.getItem(KEY) || "{}");
      return state && typeof state.lessons === "object" ? state : { lessons: {} };
    } catch {
      return { lessons: {} };
    }
  };
  const save = (state) => {
    try {
      store.setItem(KEY, JSON.stringify(state));
    } catch {
      // Storage full: progress is simply not kept.
    }
  };
  const el = (tag, props = {}, ...kids) => {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...kids);
    return node;
  };

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

  function update(change) {
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
      const lesson = lessons.find((l) => l.path === url.pathname);
      if (lesson && !link.closest(".lk-progress")) mark(link, lesson, state);
    }
  }

  // On a lesson: its state in a live region, "Mark as done", and the next lesson.
  function lessonBox() {
    const box = el("section", { className: "lk-progress", ariaLabel: "Your progress" });
    const line = el("p", { className: "lk-progress__status" });
    line.setAttribute("role", "status");
    const button = el("button", { type: "button", className: "md-button lk-progress__mark" });
    button.textContent = "Mark this lesson as done";
    button.addEventListener("click", () => {
      const done = button.getAttribute("aria-pressed") !== "true";
      update({ done, how: done ? "hand" : undefined });
    });
    box.append(line, button);
    const next = lessons[lessons.indexOf(here) + 1];
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
    const box = el("section", { className: "lk-progress lk-progress--home" });
    box.setAttribute("aria-labelledby", "lk-progress-title");
    const title = el("h2", { id: "lk-progress-title", textContent: "Your progress" });
    const line = el("p", { className: "lk-progress__status" });
    line.setAttribute("role", "status");
    const resume = el("p", { className: "lk-progress__resume" });
    const reset = el("button", { type: "button", className: "md-button" });
    reset.textContent = "Reset progress";
    reset.addEventListener("click", () => {
      store.removeItem(KEY);
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
    if (!here || !detail.answered) return;
    const all = detail.right === detail.total;
    update(all ? { right: detail.right, total: detail.total, done: true, how: "quiz" } : detail);
  });

  lessonkit.onPage(() => {
    if (document.querySelector(".lk-progress")) return;
    const home = base.pathname === location.pathname;
    if (here) draw = lessonBox();
    else if (home) draw = homeBox();
    if (here) {
      const state = load();
      state.last = { url: here.url };
      save(state);
      // Where to resume: the last heading scrolled past, when the reader leaves the page.
      addEventListener("pagehide", () => {
        const heads = [...document.querySelectorAll("article :is(h2, h3)[id]")];
        const passed = heads.filter((h) => h.getBoundingClientRect().top < 80).pop();
        const s = load();
        s.last = { url: here.url, at: passed?.id };
        save(s);
      });
    }
    render();
  });
  addEventListener("storage", (event) => event.key === KEY && render());
})();
