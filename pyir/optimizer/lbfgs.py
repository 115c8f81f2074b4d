"""L-BFGS (`paddle.optimizer.LBFGS`): a quasi-Newton optimizer driven by a closure that
re-evaluates the loss, with an optional strong-Wolfe line search. Eager only, as in Paddle;
the algorithm is Paddle's (two-loop recursion over the last `history_size` steps), computed in
the parameters' dtype with numpy."""

from __future__ import annotations

import numpy as np

from ..eager import Tensor, set_grad_enabled
from ..errors import BuildError
from .base import Optimizer


def _dot(x, y):
    return (x * y).sum()


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), kept in bounds."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    square = d1 ** 2 - g1 * g2
    if square < 0:
        return (low + high) / 2.0
    d2 = np.sqrt(square)
    if x1 <= x2:
        best = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        best = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(best, low), high)


def _strong_wolfe(evaluate, alpha, d, loss, grad, gtd, c1=1e-4, c2=0.9,
                  tolerance_change=1e-9, max_ls=25):
    """Step length meeting the strong Wolfe conditions: bracket, then zoom.

    Returns (loss, flat grad, step, evaluations)."""
    d_norm = np.abs(d).max()
    loss_new, grad_new = evaluate(alpha)
    evals, gtd_new = 1, _dot(grad_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, loss, grad.copy(), gtd
    done, ls_iter = False, 0
    bracket_gtd = None
    while ls_iter < max_ls:
        if loss_new > loss + c1 * alpha * gtd or (ls_iter > 1 and loss_new >= f_prev):
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, done = [alpha], [loss_new], [grad_new], True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        min_step, max_step = alpha + 0.01 * (alpha - t_prev), alpha * 10
        previous = alpha
        alpha = _cubic_minimum(t_prev, f_prev, gtd_prev, alpha, loss_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = previous, loss_new, grad_new.copy(), gtd_new
        loss_new, grad_new = evaluate(alpha)
        evals, gtd_new, ls_iter = evals + 1, _dot(grad_new, d), ls_iter + 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, alpha], [loss, loss_new], [grad, grad_new]
    stuck = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        alpha = _cubic_minimum(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - alpha, alpha - min(bracket)) < eps:
            if stuck or alpha >= max(bracket) or alpha <= min(bracket):
                alpha = max(bracket) - eps if abs(alpha - max(bracket)) < \
                    abs(alpha - min(bracket)) else min(bracket) + eps
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        loss_new, grad_new = evaluate(alpha)
        evals, gtd_new, ls_iter = evals + 1, _dot(grad_new, d), ls_iter + 1
        if loss_new > loss + c1 * alpha * gtd or loss_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = alpha, loss_new
            bracket_g[high], bracket_gtd[high] = grad_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = alpha, loss_new
            bracket_g[low], bracket_gtd[low] = grad_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """L-BFGS: `opt.step(closure)`, where closure() clears the gradients, computes the loss,
    calls backward() and returns the loss.

    Example:
        >>> opt = pyir.optimizer.LBFGS(learning_rate=1.0, parameters=[w])
        >>> def closure():
        ...     opt.clear_grad(); loss = f(w); loss.backward(); return loss
        >>> opt.step(closure)
    """

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None, parameters=None, weight_decay=None,
                 grad_clip=None, name=None) -> None:
        if line_search_fn not in (None, "strong_wolfe"):
            raise BuildError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                             f"{line_search_fn!r}")
        if parameters is None:
            raise BuildError("LBFGS: pass parameters=... (it runs eagerly only)")
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self.learning_rate, self.max_iter = learning_rate, max_iter
        self.max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = history_size, line_search_fn
        self.state: dict = {}
        self._params = list(self._parameter_list)

    def get_lr(self) -> float:
        return float(self.learning_rate)

    # --- the flat view of the parameters --------------------------------------------------
    def _flat_grad(self) -> np.ndarray:
        return np.concatenate([np.zeros(p.size, p.dtype) if p.grad is None
                               else p.grad.numpy().reshape(-1) for p in self._params])

    def _add_step(self, alpha, direction) -> None:
        offset = 0
        for p in self._params:
            part = direction[offset:offset + p.size].reshape(p.shape)
            p._value = (p.numpy() + part * alpha).astype(p.dtype)
            offset += p.size

    def _evaluate(self, closure, alpha, d):
        """Loss and flat gradient at params + alpha * d; the parameters are put back."""
        saved = [p.numpy().copy() for p in self._params]
        self._add_step(alpha, d)
        loss = float(_run(closure))
        grad = self._flat_grad()
        for p, value in zip(self._params, saved):
            p._value = value
        return loss, grad

    def step(self, closure=None):
        """Run up to max_iter L-BFGS iterations; returns the first loss closure() gave."""
        if closure is None:
            raise BuildError("LBFGS.step needs a closure that recomputes the loss (clear_grad, "
                             "forward, backward, return loss)")
        state = self.state
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = _run(closure)
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= self.tolerance_grad:
            return orig_loss
        d, alpha = state.get("d"), state.get("alpha")
        old_y, old_s, ro = state.get("old_yk"), state.get("old_sk"), state.get("ro")
        h_diag, prev_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_y, old_s, ro = -flat_grad, [], [], []
                h_diag = flat_grad.dtype.type(1.0)
            else:
                y = flat_grad - prev_grad
                s = d * d.dtype.type(alpha)
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_y) == self.history_size:
                        old_y.pop(0), old_s.pop(0), ro.pop(0)
                    old_y.append(y), old_s.append(s), ro.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                al = state.setdefault("al", [None] * self.history_size)
                q = -flat_grad
                for i in range(len(old_y) - 1, -1, -1):
                    al[i] = _dot(old_s[i], q) * ro[i]
                    q = q + old_y[i] * (-al[i])
                d = r = q * h_diag
                for i in range(len(old_y)):
                    be_i = _dot(old_y[i], r) * ro[i]
                    r = r + old_s[i] * (al[i] - be_i)
                d = r
            prev_grad = flat_grad.copy()
            prev_loss = loss
            alpha = (min(1.0, 1.0 / np.abs(flat_grad).sum()) * self.learning_rate
                     if state["n_iter"] == 1 else self.learning_rate)
            gtd = _dot(flat_grad, d)
            if gtd > -self.tolerance_change:
                break
            ls_evals = 0
            if self.line_search_fn is not None:
                loss, flat_grad, alpha, ls_evals = _strong_wolfe(
                    lambda a, d=d: self._evaluate(closure, a, d), alpha, d, loss, flat_grad, gtd)
                self._add_step(alpha, d)
                converged = np.abs(flat_grad).max() <= self.tolerance_grad
            else:
                self._add_step(alpha, d)
                converged = False
                if n_iter != self.max_iter:
                    loss = float(_run(closure))
                    flat_grad = self._flat_grad()
                    converged = np.abs(flat_grad).max() <= self.tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if converged or np.abs(d * alpha).max() <= self.tolerance_change or \
                    abs(loss - prev_loss) < self.tolerance_change or evals >= self.max_eval or \
                    n_iter == self.max_iter:
                break
        state.update(d=d, alpha=alpha, old_yk=old_y, old_sk=old_s, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_grad, prev_loss=prev_loss)
        return orig_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise BuildError("LBFGS does not minimize a loss directly: call opt.step(closure)")

    def state_dict(self) -> dict:
        """{'state': ...} as Paddle's LBFGS keeps it (history vectors as numpy arrays)."""
        return {"state": dict(self.state)}

    def set_state_dict(self, state_dict: dict) -> None:
        if not isinstance(state_dict, dict) or "state" not in state_dict:
            raise BuildError("LBFGS.set_state_dict expects {'state': ...} from state_dict()")
        self.state = {k: (v.numpy() if isinstance(v, Tensor) else v)
                      for k, v in dict(state_dict["state"]).items()}


def _run(closure):
    with set_grad_enabled(True):
        return closure()


__all__ = ["LBFGS"]
