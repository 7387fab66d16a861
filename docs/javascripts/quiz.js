/* Attention by Hand: "check your understanding" quizzes.
 *
 * The build (attention_by_hand/book/quiz.py) renders each question as a
 * fieldset with labelled radios or checkboxes and, for every choice, a
 * <details> explanation: readable without JavaScript. This script adds the
 * "Check" and "Try again" buttons, keeps the explanations hidden until the
 * reader answers, then shows every one of them with a verdict.
 *
 * Nothing is stored (no localStorage, sessionStorage, cookie or IndexedDB)
 * and nothing is sent: the answers live in the page until it is closed.
 */
(function () {
  "use strict";

  function initQuestion(fieldset) {
    if (fieldset.dataset.abhReady) return;
    fieldset.dataset.abhReady = "true";
    const multiple = fieldset.dataset.kind === "multiple";
    const items = Array.prototype.slice.call(fieldset.querySelectorAll(".abh-choices > li"));
    const actions = fieldset.querySelector(".abh-quiz-actions");
    const check = fieldset.querySelector('[data-action="check"]');
    const retry = fieldset.querySelector('[data-action="retry"]');
    const result = fieldset.querySelector(".abh-quiz-result");

    /* Each <details> becomes a plain explanation, hidden until the reader answers. */
    const choices = items.map(function (li) {
      const details = li.querySelector("details.abh-why");
      const why = document.createElement("div");
      why.className = "abh-why";
      why.id = details.id;
      why.hidden = true;
      why.appendChild(details.querySelector("p"));
      details.replaceWith(why);
      return {
        li: li,
        input: li.querySelector("input"),
        correct: li.dataset.correct === "true",
        why: why,
        verdict: why.querySelector(".abh-verdict")
      };
    });
    actions.hidden = false;

    function verdictText(c) {
      const picked = c.input.checked;
      if (picked && c.correct) return "\u2713 You chose this, and it is correct.";
      if (picked) return "\u2717 You chose this, but it is not correct.";
      if (c.correct) {
        return multiple ? "You did not choose this, but it is correct too." : "This is the correct answer.";
      }
      return "Not correct.";
    }

    check.addEventListener("click", function () {
      const picked = choices.filter(function (c) { return c.input.checked; });
      if (picked.length === 0) {
        result.textContent = multiple ? "Choose at least one answer first." : "Choose an answer first.";
        return;
      }
      const rightPicks = picked.filter(function (c) { return c.correct; }).length;
      const wrongPicks = picked.length - rightPicks;
      const allRight = choices.filter(function (c) { return c.correct; }).length;
      choices.forEach(function (c) {
        c.verdict.textContent = verdictText(c);
        c.verdict.className = "abh-verdict " +
          (c.correct ? "abh-mark-ok" : c.input.checked ? "abh-mark-bad" : "");
        c.why.hidden = false;
        c.li.classList.toggle("abh-is-correct", c.correct);
        c.li.classList.toggle("abh-is-wrong-pick", c.input.checked && !c.correct);
        c.input.setAttribute("aria-describedby", c.why.id);
        c.input.disabled = true;
      });
      let message;
      if (!multiple) {
        message = rightPicks === 1
          ? "Correct. Every choice is explained."
          : "Not correct. The correct answer is marked, and every choice is explained.";
      } else if (rightPicks === allRight && wrongPicks === 0) {
        message = "Correct: you chose all " + allRight + " correct answers. Every choice is explained.";
      } else {
        message = "Not quite: you chose " + rightPicks + " of the " + allRight + " correct answers" +
          (wrongPicks ? " and " + wrongPicks + " wrong one" + (wrongPicks > 1 ? "s" : "") : "") +
          ". The correct answers are marked, and every choice is explained.";
      }
      result.textContent = message;
      check.hidden = true;
      retry.hidden = false;
      retry.focus();
    });

    retry.addEventListener("click", function () {
      choices.forEach(function (c) {
        c.input.checked = false;
        c.input.disabled = false;
        c.input.removeAttribute("aria-describedby");
        c.why.hidden = true;
        c.li.classList.remove("abh-is-correct", "abh-is-wrong-pick");
      });
      result.textContent = "";
      retry.hidden = true;
      check.hidden = false;
      choices[0].input.focus();
    });
  }

  function start() {
    document.querySelectorAll(".abh-quiz .abh-question").forEach(initQuestion);
  }

  window.abh.onEveryPage(start);
})();
