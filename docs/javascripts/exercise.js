/* Attention by Hand: exercises whose answers the page checks.
 *
 * The build (attention_by_hand/book/exercise.py) renders each exercise with
 * its question, its hints and its answers with the worked solution in
 * <details> blocks (what a reader without JavaScript gets), the blanks in a
 * hidden <fieldset>, the mistakes' messages hidden, and the answers as JSON.
 * This script shows the blanks, turns the hints into "Show a hint" (one at a
 * time), and checks what the reader types with window.abhAnswers
 * (answers.js): Check (or Enter in a blank) judges every entry, marks each
 * blank, and says in the feedback (a polite aria-live region) which answers
 * and entries are right, a listed mistake's message, or what could not be
 * read. Reset clears the blanks, the marks, the feedback and the hints.
 *
 * window.abhExercise.replace(root, drawn) puts a drawn exercise of the same
 * shape in place of the written one (fresh.js: "New numbers"): its question,
 * hints, mistakes' messages, answers and worked solution, all set as text;
 * window.abhExercise.restore(root) brings the written one back. Both reset.
 *
 * Nothing is stored (no localStorage, sessionStorage, cookie or IndexedDB)
 * and nothing is sent: the answers live in the page until it is closed.
 */
(function () {
  "use strict";

  var OK = "\u2713", BAD = "\u2717";

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* What a judged entry says, in words ("not yet right", a reader's problem ...). */
  function entryText(status, places) {
    var A = window.abhAnswers;
    if (status === A.RIGHT) return "right";
    if (status === A.NOT_YET) return "not yet right";
    if (status === A.FEWER) return A.FEWER_PLACES;
    return status; /* the reader's problem: "type a number", "use a dot for decimals" ... */
  }

  /* Each exercise's replace() and restore(), by its root element. */
  var controllers = new WeakMap();

  /* A drawn solution as nodes: paragraphs {lead, text} and lists {items}. */
  function solutionNodes(blocks) {
    return blocks.map(function (block) {
      if (block.items) {
        var list = el("ul");
        block.items.forEach(function (item) { list.appendChild(el("li", null, item)); });
        return list;
      }
      var p = el("p");
      if (block.lead) {
        p.appendChild(el("strong", null, block.lead));
        p.appendChild(document.createTextNode(" "));
      }
      p.appendChild(document.createTextNode(block.text));
      return p;
    });
  }

  function initExercise(root) {
    if (root.dataset.abhReady || !window.abhAnswers) return;
    var A = window.abhAnswers;
    var data = JSON.parse(root.querySelector("script.abh-ex-data").textContent);
    var blanks = root.querySelector(".abh-ex-blanks");
    var feedback = root.querySelector(".abh-ex-feedback");
    var check = root.querySelector('[data-action="check"]');
    var reset = root.querySelector('[data-action="reset"]');
    var hintButton = root.querySelector('[data-action="hint"]');

    var answers = data.answers.map(function (answer, i) {
      var box = root.querySelector('.abh-ex-answer[data-answer="' + i + '"]');
      var inputs = Array.prototype.slice.call(box.querySelectorAll("input.abh-ex-input"));
      return {
        spec: answer,
        label: box.querySelector(".abh-ex-label"),
        inputs: inputs,
        names: inputs.map(function (input) {
          var name = root.querySelector("#" + input.id + "-name");
          return name ? name.textContent.replace(/, approximately$/, "") : null;
        })
      };
    });

    /* The hints: out of their <details>, shown one at a time. */
    var hints = [];
    var hintList = null;
    var details = root.querySelector("details.abh-ex-hints");
    if (details && hintButton) {
      hintList = details.querySelector("ol");
      hintList.className = "abh-ex-hint-list";
      hintList.setAttribute("aria-live", "polite");
      hints = Array.prototype.slice.call(hintList.children);
      blanks.insertBefore(hintList, feedback);
      details.remove();
    }
    var hintsShown = 0;
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
      var sign = input.parentNode.querySelector(".abh-ex-mark");
      var right = status === A.RIGHT;
      if (status === null || right) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
      sign.textContent = status ? (right ? OK : BAD) : "";
      sign.className = "abh-ex-mark" + (status ? (right ? " abh-mark-ok" : " abh-mark-bad") : "");
    }

    /* One line of the feedback for one answer: its label, then what the checker says. */
    function answerLine(answer, verdict, index) {
      var li = el("li");
      var label = el("span", "abh-ex-label");
      label.innerHTML = answer.label.innerHTML; /* the build's own HTML (maths, code) */
      li.appendChild(label);
      if (verdict.mistake !== null) {
        li.appendChild(document.createTextNode(": "));
        var message = root.querySelector('[data-mistake="' + index + "-" + verdict.mistake + '"]');
        var said = el("span", "abh-ex-mistake");
        said.innerHTML = message.innerHTML;
        li.appendChild(said);
        return li;
      }
      var places = answer.spec.entries.map(function (e) { return e.places; });
      var parts;
      if (answer.inputs.length === 1) {
        parts = [entryText(verdict.entries[0], places[0])];
      } else if (verdict.right) {
        parts = ["right"];
      } else {
        parts = verdict.entries.map(function (status, k) {
          var said = entryText(status, places[k]);
          return answer.names[k] + (status === A.RIGHT ? " is right" : ": " + said);
        });
      }
      li.appendChild(document.createTextNode(": " + parts.join("; ") + "."));
      return li;
    }

    function onCheck() {
      var verdicts = answers.map(function (answer) {
        var typed = answer.inputs.map(function (input) { return input.value; });
        var verdict = A.check(typed, answer.spec);
        answer.inputs.forEach(function (input, k) {
          mark(input, input.value.trim() === "" ? "" : verdict.entries[k]);
        });
        return verdict;
      });
      var right = verdicts.filter(function (v) { return v.right; }).length;
      feedback.textContent = "";
      var head = el("p", "abh-ex-verdict");
      var word = el("strong", right === answers.length ? "abh-mark-ok" : "abh-mark-bad",
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
        var list = el("ul", "abh-ex-said");
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
    var question = root.querySelector(".abh-ex-question");
    var title = question.querySelector(".abh-ex-title");
    var solution = root.querySelector("details.abh-ex-solution");
    var shownAnswers = solution.querySelector(".abh-ex-answers");
    var worked = solution.querySelector(".abh-ex-worked");
    var mistakes = root.querySelector(".abh-ex-mistakes");
    if (!mistakes) {
      mistakes = el("div", "abh-ex-mistakes");
      mistakes.hidden = true;
      root.insertBefore(mistakes, root.querySelector("script.abh-ex-data"));
    }
    var written = {
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
      var same = drawn.answers.length === answers.length && drawn.hints.length === hints.length &&
        drawn.answers.every(function (a, i) { return a.spec.entries.length === answers[i].inputs.length; });
      if (!same) {
        throw new Error("the drawn exercise has another shape of answers or number of hints than " +
          "the written one (" + root.id + ")");
      }
      load({
        question: [document.createTextNode(" " + drawn.question)],
        hints: drawn.hints.map(function (hint) { return [document.createTextNode(hint)]; }),
        shown: drawn.answers.map(function (a) {
          var li = el("li");
          li.appendChild(el("span", "abh-ex-label", a.label));
          li.appendChild(document.createTextNode(": "));
          li.appendChild(el("span", "abh-ex-value", a.text));
          return li;
        }),
        worked: solutionNodes(drawn.solution),
        mistakes: drawn.answers.reduce(function (all, a, i) {
          return all.concat(a.messages.map(function (message, m) {
            var p = el("p", null, message);
            p.dataset.mistake = i + "-" + m;
            return p;
          }));
        }, []),
        specs: drawn.answers.map(function (a) { return a.spec; })
      });
    }

    controllers.set(root, { replace: replace, restore: function () { load(written); } });
    blanks.hidden = false;
    root.dataset.abhReady = "true";
  }

  function controller(root) {
    var found = controllers.get(root);
    if (!found) throw new Error("not an exercise the script has started: " + (root && root.id));
    return found;
  }
  window.abhExercise = {
    replace: function (root, drawn) { controller(root).replace(drawn); },
    restore: function (root) { controller(root).restore(); }
  };

  function start() {
    document.querySelectorAll(".abh-exercise").forEach(initExercise);
  }

  window.abhOnEveryPage(start); /* book.js */
})();
