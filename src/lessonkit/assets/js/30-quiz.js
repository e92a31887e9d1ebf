/* lessonkit quiz: behaviour of the blocks built by lessonkit.quiz.
   Without this script a quiz still shows its question, its options and a <noscript> disclosure
   that explains every answer. With it: choosing an option shows that option's feedback in the
   quiz's aria-live region (multiple-answer quizzes judge the whole choice on "Check"); one result
   line per page counts quizzes answered right; answers persist per page in localStorage.
   Verdicts and feedback are sealed in <data class="lk-quiz__seal"> (see quiz/page.py, seal()):
   XOR with an xorshift32 keystream seeded by FNV-1a of "<quiz id>:<option number>", base64.
   A learning aid, not an exam: the encoding only keeps answers out of a glance at the page. */
(() => {
  const PREFIX = "lessonkit:quiz:";
  const verdicts = new WeakMap(); // quiz element -> true (right), false (wrong), absent

  // localStorage throws when blocked (private modes, sandboxed frames): then quizzes forget.
  const storage = (() => {
    try {
      const store = window.localStorage;
      store.setItem(`${PREFIX}probe`, "1");
      store.removeItem(`${PREFIX}probe`);
      return store;
    } catch {
      return null;
    }
  })();
  const keyOf = (quiz) => `${PREFIX}${location.pathname}#${quiz.id}`;

  function load(quiz) {
    try {
      return JSON.parse(storage?.getItem(keyOf(quiz)) ?? "null");
    } catch {
      return null;
    }
  }

  function save(quiz, checked) {
    const picked = inputsOf(quiz).filter((i) => i.checked).map((i) => i.value);
    try {
      storage?.setItem(keyOf(quiz), JSON.stringify({ picked, checked }));
    } catch {
      // Storage full or blocked since the probe: answers are simply not remembered.
    }
  }

  function forget(quiz) {
    try {
      storage?.removeItem(keyOf(quiz));
    } catch {
      // Nothing stored, nothing to forget.
    }
  }

  // Mirrors keystream() in quiz/page.py byte for byte.
  function keystream(key, length) {
    let state = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(key)) {
      state = Math.imul(state ^ byte, 0x01000193) >>> 0;
    }
    state = state || 1;
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 1) {
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      out[i] = state & 0xff;
    }
    return out;
  }

  function unseal(quiz, input) {
    const sealed = input.parentElement.querySelector(".lk-quiz__seal").value;
    const bytes = Uint8Array.from(atob(sealed), (c) => c.charCodeAt(0));
    const stream = keystream(`${quiz.id}:${input.value}`, bytes.length);
    const text = new TextDecoder().decode(bytes.map((b, i) => b ^ stream[i]));
    const right = text[0] === "1";
    return { right, html: text.slice(1) || (right ? "<p>Right.</p>" : "<p>Not quite.</p>") };
  }

  const inputsOf = (quiz) => [...quiz.querySelectorAll(".lk-quiz__option input")];

  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  function paragraph(text, className) {
    const p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    return p;
  }

  // An option's label as plain text, without any tooltip the glossary may have put inside.
  function labelText(input) {
    const clone = input.labels[0].cloneNode(true);
    clone.querySelectorAll('[role="tooltip"]').forEach((el) => el.remove());
    return clone.textContent.trim();
  }

  function show(quiz, right, nodes) {
    const box = quiz.querySelector(".lk-quiz__feedback");
    box.replaceChildren(...nodes);
    box.classList.toggle("is-right", right === true);
    box.classList.toggle("is-wrong", right === false);
    // Lets other features (e.g. glossary tooltips) enhance the feedback just inserted.
    box.dispatchEvent(new CustomEvent("lessonkit:content", { bubbles: true }));
  }

  function clear(quiz) {
    for (const input of inputsOf(quiz)) {
      input.parentElement.classList.remove("is-right", "is-wrong");
      input.removeAttribute("aria-describedby");
    }
    verdicts.delete(quiz);
    show(quiz, null, []);
  }

  function mark(quiz, input, right) {
    input.parentElement.classList.add(right ? "is-right" : "is-wrong");
    input.setAttribute("aria-describedby", `${quiz.id}-feedback`);
  }

  // Judge the current choice (at least one option is chosen) and show its feedback.
  function judge(quiz) {
    clear(quiz);
    const chosen = inputsOf(quiz).filter((i) => i.checked);
    if (quiz.dataset.lkQuiz !== "multiple") {
      const { right, html } = unseal(quiz, chosen[0]);
      mark(quiz, chosen[0], right);
      verdicts.set(quiz, right);
      show(quiz, right, [fragment(html)]);
      return;
    }
    let found = 0;
    let total = 0;
    let wrong = 0;
    const parts = [];
    for (const input of inputsOf(quiz)) {
      const { right, html } = unseal(quiz, input);
      total += right ? 1 : 0;
      if (!input.checked) continue;
      if (right) found += 1;
      else wrong += 1;
      mark(quiz, input, right);
      const item = document.createElement("div");
      item.className = "lk-quiz__explain";
      item.append(paragraph(labelText(input), "lk-quiz__echo"), fragment(html));
      parts.push(item);
    }
    const right = found === total && wrong === 0;
    const extra = wrong ? ` and ${wrong} wrong ${wrong === 1 ? "one" : "ones"}` : "";
    const summary = right
      ? "Right: you chose every right answer and no wrong one."
      : `Not quite: you chose ${found} of the ${total} right answers${extra}.`;
    verdicts.set(quiz, right);
    show(quiz, right, [paragraph(summary, "lk-quiz__verdict"), ...parts]);
  }

  function score(doc) {
    const line = doc.querySelector(".lk-quiz-result__score");
    if (!line) return;
    const quizzes = [...doc.querySelectorAll(".lk-quiz")];
    const right = quizzes.filter((quiz) => verdicts.get(quiz) === true).length;
    line.textContent = `You got ${right} of ${quizzes.length} right.`;
    // For the reader's progress (60-progress.js): the page's score whenever it is counted.
    const answered = quizzes.filter((quiz) => verdicts.has(quiz)).length;
    const detail = { right, total: quizzes.length, answered };
    doc.dispatchEvent(new CustomEvent("lessonkit:quiz-score", { detail }));
  }

  // Restore saved answers without announcing them: the region is silent until the next frames.
  function restore(quiz) {
    const state = load(quiz);
    if (!state || !Array.isArray(state.picked)) return;
    const inputs = inputsOf(quiz);
    for (const input of inputs) input.checked = state.picked.includes(input.value);
    if (!state.checked || !inputs.some((i) => i.checked)) return;
    const box = quiz.querySelector(".lk-quiz__feedback");
    box.setAttribute("aria-live", "off");
    judge(quiz);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => box.setAttribute("aria-live", "polite")),
    );
  }

  function setup(quiz) {
    quiz.dataset.lkReady = "";
    const doc = quiz.ownerDocument;
    const multiple = quiz.dataset.lkQuiz === "multiple";
    quiz.addEventListener("change", (event) => {
      if (!event.target.matches(".lk-quiz__option input")) return;
      if (multiple) clear(quiz); // a changed choice waits for "Check" again
      else judge(quiz);
      save(quiz, !multiple);
      score(doc);
    });
    const check = quiz.querySelector(".lk-quiz__check");
    if (check) {
      check.hidden = false;
      check.addEventListener("click", () => {
        if (!inputsOf(quiz).some((i) => i.checked)) {
          const hint = "Choose at least one answer, then press Check.";
          show(quiz, null, [paragraph(hint, "lk-quiz__verdict")]);
          return;
        }
        judge(quiz);
        save(quiz, true);
        score(doc);
      });
    }
    restore(quiz);
  }

  function setupResult(doc) {
    const result = doc.querySelector(".lk-quiz-result:not([data-lk-ready])");
    if (!result) return;
    result.dataset.lkReady = "";
    result.hidden = false;
    result.querySelector(".lk-quiz-result__reset").addEventListener("click", () => {
      for (const quiz of doc.querySelectorAll(".lk-quiz")) {
        for (const input of inputsOf(quiz)) input.checked = false;
        clear(quiz);
        forget(quiz);
      }
      score(doc);
    });
  }

  lessonkit.onPage((root) => {
    const doc = root.ownerDocument || root;
    root.querySelectorAll(".lk-quiz:not([data-lk-ready])").forEach(setup);
    setupResult(doc);
    score(doc);
  });

  // Print: the explanations, decoded into a print-only copy for as long as the print lasts.
  window.addEventListener("beforeprint", () => {
    for (const quiz of document.querySelectorAll(".lk-quiz")) {
      if (quiz.querySelector(".lk-quiz__print")) continue;
      const box = document.createElement("div");
      box.className = "lk-quiz__print";
      const list = document.createElement("ul");
      for (const input of inputsOf(quiz)) {
        const { right, html } = unseal(quiz, input);
        const head = document.createElement("p");
        const verdict = document.createElement("strong");
        verdict.textContent = right ? "Right answer:" : "Wrong answer:";
        head.append(verdict, ` ${labelText(input)}`);
        const item = document.createElement("li");
        item.append(head, fragment(html));
        list.append(item);
      }
      box.append(list);
      quiz.append(box);
    }
  });
  window.addEventListener("afterprint", () => {
    document.querySelectorAll(".lk-quiz__print").forEach((el) => el.remove());
  });
})();
