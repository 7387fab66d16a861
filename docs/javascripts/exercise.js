/* Attention by Hand: exercises whose answers the page checks.
 *
 * The build (attention_by_hand/book/exercise.py) renders each exercise with
 * its question, its hints and its answers with the worked solution in
 * <details> blocks (what a reader without JavaScript gets), the blanks in a
 * hidden <fieldset>, the mistakes' messages hidden, and the answers as JSON.
 * This script shows the blanks, turns the hints into "Show a hint" (one at a
 * time), and checks what the reader types with abh.answers (answers.js,
 * which must load before this script): Check (or Enter in a blank) judges
 * every entry, marks each blank, and says in the feedback (a polite
 * aria-live region) which answers and entries are right, a listed mistake's
 * message, or what could not be read. Reset clears the blanks, the marks,
 * the feedback and the hints.
 *
 * abh.exercise.replace(root, drawn) puts a drawn exercise of the same
 * shape in place of the written one (fresh.js: "New numbers"): its question,
 * hints, mistakes' messages, answers and worked solution, all set as text;
 * abh.exercise.restore(root) brings the written one back. Both reset.
 *
 * An exercise written with `new numbers:` has a hidden "New numbers"
 * control, which this script shows and listens to ("New numbers", "Show it"
 * or Enter in the seed box, "The page's numbers"). fresh.js, which draws the
 * exercises, is in no tag of the page: the control's first use fetches it
 * through the core (abh.loadScript, once a page), then each use runs what
 * fresh.js's control does. When it cannot be fetched, the control's status
 * line says so.
 *
 * Nothing is stored (no localStorage, sessionStorage, cookie or IndexedDB)
 * and nothing is sent: the answers live in the page until it is closed.
 */
(function () {
  "use strict";

  const abh = window.abh;
  const A = abh.needs("answers", "exercise.js", "answers.js");
  if (!A) return;

  const OK = "\u2713", BAD = "\u2717";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* What a judged entry says, in words ("not yet right", a reader's problem ...). */
  function entryText(status) {
    if (status === A.RIGHT) return "right";
    if (status === A.NOT_YET) return "not yet right";
    if (status === A.FEWER) return A.FEWER_PLACES;
    return status; /* the reader's problem: "type a number", "use a dot for decimals" ... */
  }

  /* Each exercise's replace() and restore(), by its root element. */
  const controllers = new WeakMap();

  /* A drawn solution as nodes: paragraphs {lead, text} and lists {items}. */
  function solutionNodes(blocks) {
    return blocks.map(function (block) {
      if (block.items) {
        const list = el("ul");
        block.items.forEach(function (item) { list.appendChild(el("li", null, item)); });
        return list;
      }
      const p = el("p");
      if (block.lead) {
        p.appendChild(el("strong", null, block.lead));
        p.appendChild(document.createTextNode(" "));
      }
      p.appendChild(document.createTextNode(block.text));
      return p;
    });
  }

  function initExercise(root, data) {
    const blanks = root.querySelector(".abh-ex-blanks");
    const feedback = root.querySelector(".abh-ex-feedback");
    const check = root.querySelector('[data-action="check"]');
    const reset = root.querySelector('[data-action="reset"]');
    const hintButton = root.querySelector('[data-action="hint"]');

    const answers = data.answers.map(function (answer, i) {
      const box = root.querySelector('.abh-ex-answer[data-answer="' + i + '"]');
      const inputs = Array.prototype.slice.call(box.querySelectorAll("input.abh-ex-input"));
      return {
        spec: answer,
        label: box.querySelector(".abh-ex-label"),
        inputs: inputs,
        names: inputs.map(function (input) {
          const name = root.querySelector("#" + input.id + "-name");
          return name ? name.textContent.replace(/, approximately$/, "") : null;
        })
      };
    });

    /* The hints: out of their <details>, shown one at a time. */
    let hints = [];
    let hintList = null;
    const details = root.querySelector("details.abh-ex-hints");
    if (details && hintButton) {
      hintList = details.querySelector("ol");
      hintList.className = "abh-ex-hint-list";
      hintList.setAttribute("aria-live", "polite");
      hints = Array.prototype.slice.call(hintList.children);
      blanks.insertBefore(hintList, feedback);
      details.remove();
    }
    let hintsShown = 0;
    function showHints(n) {
      hintsShown = n;
      hints.forEach(function (li, k) { li.hidden = k >= n; });
      if (hintList) hintList.hidden = n === 0;
      if (!hintButton) return;
      hintButton.hidden = n >= hints.length;
      hintButton.textContent = (n === 0 ? "Show a hint" : "Show the next hint") +
        " (" + (n + 1) + " of " + hints.length + ")";
    }
    showHints(0);

    /* status: null (clear), "" (left empty), or what the checker said of the entry. */
    function mark(input, status) {
      const sign = input.parentNode.querySelector(".abh-ex-mark");
      const right = status === A.RIGHT;
      if (status === null || right) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
      sign.textContent = status ? (right ? OK : BAD) : "";
      sign.className = "abh-ex-mark" + (status ? (right ? " abh-mark-ok" : " abh-mark-bad") : "");
    }

    /* One line of the feedback for one answer: its label, then what the checker says. */
    function answerLine(answer, verdict, index) {
      const li = el("li");
      const label = el("span", "abh-ex-label");
      label.innerHTML = answer.label.innerHTML; /* the build's own HTML (maths, code) */
      li.appendChild(label);
      if (verdict.mistake !== null) {
        li.appendChild(document.createTextNode(": "));
        const message = root.querySelector('[data-mistake="' + index + "-" + verdict.mistake + '"]');
        const said = el("span", "abh-ex-mistake");
        said.innerHTML = message.innerHTML;
        li.appendChild(said);
        return li;
      }
      let parts;
      if (answer.inputs.length === 1) {
        parts = [entryText(verdict.entries[0])];
      } else if (verdict.right) {
        parts = ["right"];
      } else {
        parts = verdict.entries.map(function (status, k) {
          const said = entryText(status);
          return answer.names[k] + (status === A.RIGHT ? " is right" : ": " + said);
        });
      }
      li.appendChild(document.createTextNode(": " + parts.join("; ") + "."));
      return li;
    }

    function onCheck() {
      const verdicts = answers.map(function (answer) {
        const typed = answer.inputs.map(function (input) { return input.value; });
        const verdict = A.check(typed, answer.spec);
        answer.inputs.forEach(function (input, k) {
          mark(input, input.value.trim() === "" ? "" : verdict.entries[k]);
        });
        return verdict;
      });
      const right = verdicts.filter(function (v) { return v.right; }).length;
      feedback.textContent = "";
      const head = el("p", "abh-ex-verdict");
      const word = el("strong", right === answers.length ? "abh-mark-ok" : "abh-mark-bad",
        right === answers.length ? "Right." : "Not yet.");
      head.appendChild(word);
      if (answers.length > 1) {
        head.appendChild(document.createTextNode(
          right === answers.length
            ? " Every answer is right."
            : " " + right + " of " + answers.length + " answers " + (right === 1 ? "is" : "are") + " right."
        ));
      }
      feedback.appendChild(head);
      if (right < answers.length || answers.some(function (a) { return a.inputs.length > 1; })) {
        const list = el("ul", "abh-ex-said");
        answers.forEach(function (answer, i) { list.appendChild(answerLine(answer, verdicts[i], i)); });
        feedback.appendChild(list);
      }
    }

    function clear() {
      answers.forEach(function (answer) {
        answer.inputs.forEach(function (input) { input.value = ""; mark(input, null); });
      });
      feedback.textContent = "";
      showHints(0);
    }

    function onReset() {
      clear();
      answers[0].inputs[0].focus();
    }

    answers.forEach(function (answer) {
      answer.inputs.forEach(function (input) {
        input.addEventListener("keydown", function (event) {
          if (event.key === "Enter") {
            event.preventDefault();
            onCheck();
          }
        });
        input.addEventListener("input", function () { mark(input, null); });
      });
    });
    check.addEventListener("click", onCheck);
    reset.addEventListener("click", onReset);
    if (hintButton) {
      hintButton.addEventListener("click", function () {
        showHints(Math.min(hints.length, hintsShown + 1));
        if (hintButton.hidden) hints[hints.length - 1].focus();
      });
      hints.forEach(function (li) { li.tabIndex = -1; });
    }
    /* The written exercise, to come back to; a drawn one replaces these parts. */
    const question = root.querySelector(".abh-ex-question");
    const title = question.querySelector(".abh-ex-title");
    const solution = root.querySelector("details.abh-ex-solution");
    const shownAnswers = solution.querySelector(".abh-ex-answers");
    const worked = solution.querySelector(".abh-ex-worked");
    let mistakes = root.querySelector(".abh-ex-mistakes");
    if (!mistakes) {
      mistakes = el("div", "abh-ex-mistakes");
      mistakes.hidden = true;
      root.insertBefore(mistakes, root.querySelector("script.abh-ex-data"));
    }
    const written = {
      question: Array.prototype.slice.call(question.childNodes, 1),
      hints: hints.map(function (li) { return Array.prototype.slice.call(li.childNodes); }),
      shown: Array.prototype.slice.call(shownAnswers.childNodes),
      worked: Array.prototype.slice.call(worked.childNodes),
      mistakes: Array.prototype.slice.call(mistakes.childNodes),
      specs: answers.map(function (answer) { return answer.spec; })
    };

    function fill(node, children) {
      node.textContent = "";
      children.forEach(function (child) { node.appendChild(child); });
    }

    function load(content) {
      fill(question, [title].concat(content.question));
      hints.forEach(function (li, k) { fill(li, content.hints[k]); });
      fill(shownAnswers, content.shown);
      fill(worked, content.worked);
      fill(mistakes, content.mistakes);
      answers.forEach(function (answer, i) { answer.spec = content.specs[i]; });
      clear();
    }

    function replace(drawn) {
      const same = drawn.answers.length === answers.length && drawn.hints.length === hints.length &&
        drawn.answers.every(function (a, i) { return a.spec.entries.length === answers[i].inputs.length; });
      if (!same) {
        throw new Error("the drawn exercise has another shape of answers or number of hints than " +
          "the written one (" + root.id + ")");
      }
      load({
        question: [document.createTextNode(" " + drawn.question)],
        hints: drawn.hints.map(function (hint) { return [document.createTextNode(hint)]; }),
        shown: drawn.answers.map(function (a) {
          const li = el("li");
          li.appendChild(el("span", "abh-ex-label", a.label));
          li.appendChild(document.createTextNode(": "));
          li.appendChild(el("span", "abh-ex-value", a.text));
          return li;
        }),
        worked: solutionNodes(drawn.solution),
        mistakes: drawn.answers.reduce(function (all, a, i) {
          return all.concat(a.messages.map(function (message, m) {
            const p = el("p", null, message);
            p.dataset.mistake = i + "-" + m;
            return p;
          }));
        }, []),
        specs: drawn.answers.map(function (a) { return a.spec; })
      });
    }

    controllers.set(root, { replace: replace, restore: function () { load(written); } });
    blanks.hidden = false;
    if (root.dataset.newNumbers !== undefined) initNewNumbers(root);
  }

  /* The "New numbers" control of the exercise `root`: shown, and each of its
   * actions run by fresh.js's control, which the first use fetches. */
  function initNewNumbers(root) {
    const box = root.querySelector(".abh-ex-fresh");
    if (!box || box.dataset.abhReady) return;
    const status = box.querySelector(".abh-ex-fresh-status");
    const seedInput = box.querySelector("input.abh-ex-seed");
    let actions = null;

    function unavailable() {
      status.textContent = "New numbers could not be loaded: the script that draws them did " +
        "not arrive. Check the connection, then try again.";
    }
    /* Run actions[name], once fresh.js has arrived and made them. */
    function run(name) {
      abh.loadScript("fresh.js").then(function () {
        if (!actions) {
          const fresh = abh.needs("fresh", "exercise.js", "fresh.js");
          if (!fresh) {
            unavailable();
            return;
          }
          actions = fresh.control(root, abh.exercise);
        }
        actions[name]();
      }, unavailable);
    }

    box.querySelector('[data-action="new-numbers"]').addEventListener("click", function () {
      run("newNumbers");
    });
    box.querySelector('[data-action="seed"]').addEventListener("click", function () {
      run("fromTyped");
    });
    seedInput.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        run("fromTyped");
      }
    });
    box.querySelector('[data-action="page-numbers"]').addEventListener("click", function () {
      run("back");
    });
    box.hidden = false;
    box.dataset.abhReady = "true";
  }

  function controller(root) {
    const found = controllers.get(root);
    if (!found) throw new Error("not an exercise the script has started: " + (root && root.id));
    return found;
  }
  abh.exercise = {
    replace: function (root, drawn) { controller(root).replace(drawn); },
    restore: function (root) { controller(root).restore(); }
  };

  abh.widgets(".abh-exercise", { data: "abh-ex-data" }, initExercise);
})();
