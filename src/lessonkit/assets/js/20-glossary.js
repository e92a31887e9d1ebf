/* lessonkit: glossary tooltips. CSS shows them on hover and focus; this adds what CSS can't:
   a tap toggles one (the link is still followed by mouse and keyboard), Escape and a tap
   elsewhere close it, and each one is nudged to stay inside the viewport and below the header. */
(() => {
  const MARGIN = 8;
  let pointerType = "mouse";

  function place(term) {
    const tip = term.querySelector(".lk-term__tip");
    if (!tip) return;
    term.style.setProperty("--lk-shift", "0px");
    term.classList.remove("lk-term--below");
    const width = document.documentElement.clientWidth;
    let rect = tip.getBoundingClientRect();
    if (rect.width === 0) return; // not shown
    const header = document.querySelector(".md-header");
    const top = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    if (rect.top < top + MARGIN) {
      term.classList.add("lk-term--below");
      rect = tip.getBoundingClientRect();
    }
    // Stay inside the text column when it is wide enough, and always inside the viewport.
    const column = term.closest(".md-content, article")?.getBoundingClientRect();
    let left = MARGIN;
    let right = width - MARGIN;
    if (column && column.width >= rect.width) {
      left = Math.max(left, column.left);
      right = Math.min(right, column.right);
    }
    let shift = 0;
    if (rect.right > right) shift = right - rect.right;
    if (rect.left + shift < left) shift = left - rect.left;
    term.style.setProperty("--lk-shift", `${Math.round(shift)}px`);
  }

  function close(term) {
    term.classList.remove("is-open");
    term.classList.add("is-dismissed");
  }

  function open(term) {
    for (const other of document.querySelectorAll(".lk-term.is-open")) {
      if (other !== term) close(other);
    }
    term.classList.remove("is-dismissed");
    term.classList.add("is-open");
    place(term);
  }

  function show(event) {
    const term = event.currentTarget;
    term.classList.remove("is-dismissed");
    place(term);
  }

  function tap(event) {
    if (pointerType !== "touch" && pointerType !== "pen") return; // mouse and keys follow the link
    event.preventDefault();
    const term = event.currentTarget.closest(".lk-term");
    if (term.classList.contains("is-open")) close(term);
    else open(term);
  }

  document.addEventListener("pointerdown", (event) => {
    pointerType = event.pointerType || "mouse";
    if (!event.target.closest(".lk-term")) {
      for (const term of document.querySelectorAll(".lk-term.is-open")) close(term);
    }
  }, true);

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const term of document.querySelectorAll(".lk-term")) {
      if (term.classList.contains("is-open") || term.matches(":hover, :focus-within")) close(term);
    }
  });

  lessonkit.onPage((root) => {
    for (const term of root.querySelectorAll(".lk-term:not([data-lk-ready])")) {
      term.dataset.lkReady = "";
      term.addEventListener("mouseenter", show);
      term.addEventListener("focusin", show);
      term.querySelector(".lk-term__link")?.addEventListener("click", tap);
    }
  });
})();
