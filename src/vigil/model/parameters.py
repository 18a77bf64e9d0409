"""Every constant of the fatigue model, with unit and source, and the named presets.

Section numbers (``§``) refer to the implementation reference
``shared/reference/fatigue-model.md``; its §10 lists the same groups. Provenance tags:
``[P]`` published, ``[D]`` derived by us from published open models, ``[C]`` project choice.

A preset is a complete, named :class:`Parameters` instance (STYLE §3.2): ``DEFAULT``
(``ingre2014_5c``), ``TPM_DEFAULT`` (``tpm_default``, the published Three-Process Model as
FIPS computes it), ``INGRE2014_EXP`` (``ingre2014_exp``, exponential jet-lag adaptation, for
sensitivity runs) and ``UNIFIED`` (``unified``, the Unified Model of Performance with its slow
allostatic process, :mod:`.unified`). ``Parameters.model_version`` is the response's
``modelVersion``.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field, replace
from typing import Literal

from ._kernels import Consts, constants, kernel_fields, scalar_fields

MODEL_VERSION = "1.6.0"  #: bump when any default that moves scores changes (contract §4)

#: recovery rate while asleep, ln((ha - 14)/(ha - 7.96))/8 [h^-1], ref §2.1 (FIPS TPM_make_pvec)
_G = math.log((14.3 - 14.0) / (14.3 - 7.96)) / 8.0


@dataclass(frozen=True, slots=True)
class Parameters:
    """A complete parameter set of the fatigue model (reference §10).

    Frozen and hashable, so a preset can key caches (e.g. the reference-duty hazard).
    Build variants with :func:`dataclasses.replace`.
    """

    name: str = "ingre2014_5c"  #: preset name, reported in ``model_version``

    # --- S, homeostatic process (ref §2.1) [P] Åkerstedt & Folkard 1997; FIPS defaults
    la: float = 2.4  # [TPM] lower asymptote of S while awake, ref §2.1 [P]
    ha: float = 14.3  # [TPM] upper asymptote of S while asleep, ref §2.1 [P]
    d: float = -0.0353  # [h^-1] decay rate of S while awake, ref §2.1 [P]
    g: float = _G  # [h^-1] recovery rate of S while asleep (-0.381345), ref §2.1 [P]
    bl: float = 12.2  # [TPM] break level: below it recovery is linear, ref §2.1 [P]
    #: Sleep that starts with S >= bl. "exponential": S = ha - (ha - S_s)·exp(g·τ), the
    #: continuous form of ref §2.1. "fips": FIPS TPM_Spfun, which uses the (negative)
    #: linear break time, S = ha - (ha - bl)·exp(g·(τ - τ_b)); used by tpm_default [P].
    sleep_above_break: Literal["exponential", "fips"] = "exponential"

    # --- C and U, circadian and 12-h processes (ref §2.2) [P] Åkerstedt et al. 2004; FIPS
    cm: float = 0.0  # [TPM] mesor of C (FIPS Cm), ref §2.2 [P]
    ca: float = 2.5  # [TPM] amplitude of C, ref §2.2 [P]
    p: float = 16.8  # [h body time] acrophase of C, ref §2.2 [P]
    um: float = -0.5  # [TPM] mesor of U, ref §2.2 [P]
    ua: float = 0.5  # [TPM] amplitude of U, ref §2.2 [P]
    u_shift: float = 3.0  # [h] U phase relative to p (cos(2π(τ - p - 3)/12)), ref §2.2 [P]

    # --- W, sleep inertia (ref §2.3) [P] Åkerstedt et al. 2004; FIPS
    wc: float = -5.72  # [TPM] inertia at the moment of waking, ref §2.3 [P]
    wd: float = -1.51  # [h^-1] inertia decay rate, ref §2.3 [P]
    inertia: bool = True  # W switched on (Ingre 2014 dropped it; we keep it), ref §2.3 [C]
    #: scale Wc by min(1, T_sleep / inertia_full_sleep) after short sleeps, ref §2.3 [C]
    inertia_short_sleep_scaling: bool = True
    inertia_full_sleep: float = 1.5  # [h] sleep length giving full inertia, ref §2.3 [C]

    # --- KSS transform and ordinal model (ref §2.5)
    kss_intercept: float = 9.68  # [KSS] Ingre et al. 2014 model 5c [P, secondary source]
    kss_slope: float = -0.46  # [KSS/TPM] Ingre et al. 2014 model 5c [P, secondary source]
    kss_residual_sd: float = 1.42  # [KSS] Ingre et al. 2014 model 5c [P]
    kss_percentile_offset: tuple[float, float] = (0.57, 1.07)  # [KSS] 75th/90th pct, §2.7 [P]
    ordinal_slope: float = -0.599  # [logit/TPM] Ingre 2014 5c ordinal model, ref §2.5 [P]
    #: [logit] cut-points K_1..K_8, P(KSS > k) = logistic(-0.599·X - K_k), ref §2.5 [P]
    ordinal_cutpoints: tuple[float, ...] = (-10.99, -8.95, -7.67, -6.66, -5.64, -4.30, -3.05, -0.58)
    ordinal_percentile_offset: tuple[float, float] = (0.74, 1.41)  # [logit] 75th/90th, §2.5 [P]

    # --- output scales (ref §2.6); all take the final KSS K
    sp_slope: float = 0.75  # [SP/KSS] SP = 1 + 0.75·(K - 1), clipped 1..7, ref §2.6 [C]
    kp_slope: float = 1.3022  # [logit/KSS] KP = 100·logistic(1.3022·K - 9.555), ref §2.6 [P/C]
    kp_intercept: float = -9.555  # [logit] threshold KSS >= 8 (KSS >= 7: -8.305), §2.6 [C]
    vd_slope: float = 8.6  # [%/KSS] VD = 8.6·max(0, K - 3.85), SAFTE cross-walk, §2.6 [D]
    vd_knee: float = 3.85  # [KSS] ref §2.6 [D]
    crd_fraction: float = 0.65  # [-] CRD = 0.65·VD, Lim & Dinges 2010, ref §2.6 [D]
    pmr_floor: float = 1.0  # [%] rested lapse rate, ref §2.6 [D]
    pmr_slope: float = 4.2  # [%/KSS] PMR = 1 + 4.2·max(0, K - 3.75), UMP cross-walk, §2.6 [D]
    pmr_knee: float = 3.75  # [KSS] ref §2.6 [D]

    # --- body clock (ref §3)
    phase_model: Literal["linear", "exponential"] = "linear"  # ref §3 [P/C]
    rate_east: float = 1.0  # [h/day] advance rate, Waterhouse 2007; Eastman 2009, §3 [P/C]
    rate_west: float = 1.5  # [h/day] delay rate, Waterhouse 2007; Eastman 2009, §3 [P/C]
    #: [1/day] share of the remaining gap closed per day in phase_model "exponential";
    #: ingre2014_exp, ref §3 [P, verify]
    phase_daily_fraction: float = 0.30

    # --- sleep prediction gates and limits (ref §4.2-4.3), used by the sleep predictor
    gate_onset: float = 8.9  # [TPM] sleep onset allowed when S + C <= 8.9, ref §4.2 [D]
    gate_wake: float = 11.72  # [TPM] spontaneous waking when S + C >= 11.72, ref §4.2 [D]
    max_sleep: float = 10.0  # [h] longest single sleep, ref §4.2 [C]
    min_sleep: float = 0.5  # [h] shortest kept episode, ref §4.2 [C]
    #: [-] share of the sleep cut by an early forced wake that is made up by going to bed
    #: earlier (onset advance = fraction × (natural wake - forced wake), the natural sleep
    #: being at most the home sleep): sleep before a duty then grows with later starts,
    #: Roach et al. 2012 (changed from a fixed 1.5-h advance below a 07:00 body-time wake,
    #: ref §4.3.2). Fitted by ``vigil report fit`` (group "early-start bedtime",
    #: docs/validation/fit.md) [C, fitted: roach2012-0400, roach2012-0900, roach2012-slope]
    early_advance_fraction: float = 0.66
    #: [h body] bedtime not before 19:30 body time (ref §4.3.2: 21:00, which made sleep
    #: before 04:00-06:00 reports fall 60 min per hour earlier; Roach et al. 2012)
    #: [C, fitted: roach2012-0400, roach2012-0900, roach2012-slope, roach2012-monotone]
    early_earliest_body: float = 19.5
    nap_length: float = 1.5  # [h] pre-duty nap before evening/night reports, §4.3 [C]
    transfer_away: float = 0.5  # [h] hotel transfer away from base, ref §4.1 [C]
    wind_down: float = 0.5  # [h] after off-duty + commute before sleep, ref §4.1 [C]
    min_window: float = 1.0  # [h] shortest usable sleep window, ref §4.1 [C]

    # --- in-flight rest (ref §5)
    inflight_efficiency_max: float = 0.70  # [-] e_max, Signal et al. 2013, ref §5.2 [P]
    inflight_efficiency_range: tuple[float, float] = (0.4, 1.0)  # [-] g at G_wake/G_on [C]
    inflight_quality: float = 0.70  # [-] q of bunk sleep, Roach et al. 2010, ref §5.2 [P]
    #: [-] facility factors r_k for SleepClass 1..5 (Simons & Spencer 2007 for 1-3 [P]; 4-5 [C])
    facility_factor: tuple[float, ...] = (1.0, 0.75, 0.33, 0.20, 0.10)

    # --- flight timing (ref §5.1, §6) [C]
    report_to_takeoff: float = 1.0  # [h] flight period starts report + 60 min, ref §6 [C]
    landing_to_off: float = 0.5  # [h] flight period ends off - 30 min, ref §6 [C]
    cruise_margin_takeoff: float = 0.5  # [h] no rest within 30 min after take-off, §5.1 [C]
    cruise_margin_landing: float = 0.5  # [h] no rest within 30 min before landing, §5.1 [C]

    # --- workload (ref §6) [C, evidence-bounded]
    workload_per_sector: float = 0.4  # [KSS/sector] b_s, Powell et al. 2007/2008, ref §6 [C]
    workload_cap: float = 2.0  # [KSS] cap of the sector term, ref §6 [C]

    # --- per-duty risk (ref §8): h = S·T·D·B·M_cum per working hour, plus task exposure
    #: [1/KSS] sleepiness component S = exp(β(K - K_typ(τ))): Åkerstedt et al. 2008, crash
    #: OR 1.72 per step of model-predicted sleepiness (95 % CI 1.41-2.09), applied to the
    #: sleepiness beyond the typical shiftworker's at that body hour (:func:`typical_kss`) [P]
    risk_beta: float = math.log(1.72)
    #: [TPM] alertness X of a typical rotating three-shift worker at body hours 0..23 (hour
    #: means of the validation scenarios SHIFT-N 22-06, SHIFT-M 06-14, SHIFT-A 14-22:
    #: first shifts after days off, predicted sleep); K_typ = KSS of it (model.risk
    #: :func:`typical_kss`); recompute with ``python -m vigil.validation.risk_fit``
    #: [D, identity row risk-typical-kss]
    risk_typical_alertness: tuple[float, ...] = (
        7.89, 6.98, 6.32, 5.94, 5.80, 5.87, 10.29, 10.50, 10.64, 10.74, 10.81, 10.90,
        11.01, 11.16, 12.26, 12.40, 12.48, 12.41, 12.15, 11.63, 10.87, 9.89, 10.16, 8.98,
    )  # fmt: skip
    #: [-] amplitude of the time-of-day component T = 1 + a·cos(2π(τ - acrophase)/24)
    #: (Folkard, Lombardi & Spencer 2006) [C, fitted: smith1994-night, folkard2004-afternoon]
    risk_tod_amplitude: float = 0.149
    #: [h body] acrophase of T: about midnight (Folkard, Lombardi & Spencer 2006) [P]
    risk_tod_acrophase: float = 0.0
    #: [h^-1] D = exp(c·max(0, h on duty - 8)): risk rises about exponentially after 8-9 h
    #: (Folkard & Tucker 2003, Folkard & Lombardi 2006) [C, fitted: folkard2003-12h]
    tot_coefficient: float = 0.129
    tot_onset: float = 8.0  # [h] Folkard & Åkerstedt 2004; Folkard & Lombardi 2006, §8 [P]
    #: [h] B rises linearly from 1 (first half hour of a work spell) to ``break_factor_max``
    #: (fourth half hour) over this many hours, then stays (Tucker, Folkard & Macdonald
    #: 2003: risk doubled from the first to the last half hour of 2 h of work; Tucker et
    #: al. 2006: roughly constant after that) [P]
    break_ramp_hours: float = 1.5
    break_factor_max: float = 2.0  # [-] Tucker, Folkard & Macdonald 2003, Lancet [P]
    break_min_hours: float = 0.25  # [h] an own rest window this long ends a work spell [C]
    #: [h] cruise-hour equivalents of one take-off and one landing, from Boeing's
    #: Statistical Summary of Commercial Jet Airplane Accidents (fatal accidents by phase
    #: of flight, worldwide, with its 1.5-h-flight exposure): take-off + initial climb
    #: ≈ 14 % of fatal accidents in ≈ 2 % of flight time, final approach + landing ≈ 48 %
    #: in ≈ 4 %; the other 38 % over the other 94 % (1.41 h) give 0.27 per hour, so a
    #: take-off carries 0.14/0.27 = 0.52 h and a landing 0.48/0.27 = 1.78 h [P, derived;
    #: shares confirmed by secondary quotes of the 1959-2016 edition, docs/model.md "Risk"]
    exposure_takeoff: float = 0.52
    exposure_landing: float = 1.78
    #: [h] the same for cabin crew: the exposure is the aircraft's phase of flight (an
    #: evacuation is as likely in those phases), counted once (ref §8 had 1, 1 [C])
    exposure_cabin: tuple[float, float] = (0.52, 1.78)
    #: [-] M_cum for the k-th consecutive night duty, k = 1, 2, 3, >=4, Folkard & Tucker
    #: 2003 [P; unverified: the paper's tables are not in the stored sources]
    night_multiplier: tuple[float, ...] = (1.00, 1.06, 1.17, 1.36)
    #: [-] M_cum for consecutive early starts, same source [P; unverified, as above]
    early_multiplier: tuple[float, ...] = (1.00, 1.02, 1.07, 1.17)
    consecutive_gap: float = 36.0  # [h] "consecutive" = gap to previous same-type duty, §8 [C]
    night_window: tuple[float, float] = (2.0, 5.0)  # [h body] night duty touches 02:00-04:59
    early_window: tuple[float, float] = (5.0, 7.0)  # [h body] early = report 05:00-06:59

    # --- Unified Model of Performance (UMP), preset ``unified`` (model/unified.py)
    #: "tpm": X = S + C + U + W (Three-Process Model); "unified": X = PVT lapses S + κ·C of
    #: the UMP (Rajdev et al. 2013; Ramakrishnan et al. 2016), which the KSS transform maps
    #: with a positive slope (more lapses, sleepier) [C]
    alertness_model: Literal["tpm", "unified"] = "tpm"
    ump_upper: float = 24.12  # [lapses] U, upper asymptote of S and L, Ramakrishnan 2016 [P, FIPS]
    ump_tau_w: float = 40.0  # [h] τ_w, rise of S while awake, Ramakrishnan 2016 [P, FIPS]
    ump_tau_s: float = 1.0  # [h] τ_s, fall of S toward L while asleep, Ramakrishnan 2016 [P, FIPS]
    ump_tau_la: float = (
        4.06 * 24.0
    )  # [h] τ_LA, allostatic L (4.06 days), Ramakrishnan 2016 [P, FIPS]
    ump_kappa: float = 4.13  # [lapses] κ, weight of C, Ramakrishnan 2016 [P, FIPS]
    ump_phase: float = 2.02  # [h] φ of C(t) = Σ a_i sin(2πi(t + φ)/24), Ramakrishnan 2016 [P, FIPS]
    #: [-] a_1..a_5 of the UMP's C, the two-process model's skewed sine as FIPS prints it
    #: (a_5 = 0.0001; Achermann & Borbély's 0.001 moves lapses by < 0.004) [P, FIPS]
    ump_harmonics: tuple[float, ...] = (0.97, 0.22, 0.07, 0.03, 0.0001)
    #: [h] daily wake/sleep whose periodic steady state gives (S, L) at ``timeline.start``,
    #: the habitual 23:00-07:00 of the warm-up (ref §9.4) [C]
    ump_habitual: tuple[float, float] = (16.0, 8.0)
    #: [TPM units per unit of L/U] weight λ of the UMP's allostatic sleep debt in X for the
    #: Three-Process presets, X -= λ·(L_w - L_ss)/U with L_w the L at the last waking; 0 = off
    #: (docs/model.md) [C, fitted: axelsson2008-kss-slope]
    slow_weight: float = 0.0

    _kernel: Consts = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.risk_typical_alertness) != 24:
            raise ValueError("risk_typical_alertness must hold body hours 0..23")
        if len(self.ordinal_cutpoints) != 8:
            raise ValueError("ordinal_cutpoints must hold K_1..K_8")
        if len(self.facility_factor) != 5:
            raise ValueError("facility_factor must hold r_1..r_5")
        if self.sleep_above_break not in ("exponential", "fips"):
            raise ValueError(f"unknown sleep_above_break {self.sleep_above_break!r}")
        if self.phase_model not in ("linear", "exponential"):
            raise ValueError(f"unknown phase_model {self.phase_model!r}")
        if self.alertness_model not in ("tpm", "unified"):
            raise ValueError(f"unknown alertness_model {self.alertness_model!r}")
        if len(self.ump_harmonics) != 5:
            raise ValueError("ump_harmonics must hold a_1..a_5")
        object.__setattr__(self, "_kernel", _kernel_vector(self))

    @property
    def model_version(self) -> str:
        """``modelVersion`` of responses, e.g. ``"1.1.0+ingre2014_5c"`` (contract §4)."""
        return f"{MODEL_VERSION}+{self.name}"

    @property
    def r_lin(self) -> float:
        """Linear recovery rate below the break level, ``g·(bl - ha)`` [TPM/h] (ref §2.1)."""
        return self.g * (self.bl - self.ha)

    @property
    def antidromic_threshold(self) -> float:
        """Eastward gap [h] beyond which delaying is faster: ``24·r_E/(r_E + r_W)`` (§3)."""
        return 24.0 * self.rate_east / (self.rate_east + self.rate_west)

    @property
    def kernel(self) -> Consts:
        """The constants the Numba kernels read, a named tuple (see :mod:`._kernels`)."""
        return self._kernel


_DERIVED = ("fips_break", "phase_exp", "rate_e", "rate_w", "phase_k", "r_lin")
#: The constants the simulator's kernels read (see :func:`_kernel_vector`).
ModelConstants = namedtuple("ModelConstants", kernel_fields(Parameters, _DERIVED))  # type: ignore[misc]  # noqa: PYI024


def _kernel_vector(p: Parameters) -> Consts:
    """The constants the Numba kernels read (:mod:`._kernels`): every scalar field of ``p``
    by its own name, plus the derived values below."""
    values = scalar_fields(p)
    values["fips_break"] = 1.0 if p.sleep_above_break == "fips" else 0.0
    values["phase_exp"] = 1.0 if p.phase_model == "exponential" else 0.0
    values["rate_e"] = p.rate_east / 24.0  # [h/h]
    values["rate_w"] = p.rate_west / 24.0  # [h/h]
    values["phase_k"] = -math.log(1.0 - p.phase_daily_fraction) / 24.0  # [h^-1]
    values["r_lin"] = p.g * (p.bl - p.ha)  # [TPM/h] linear recovery below bl, ref §2.1
    return constants(values, ModelConstants)


def replace_kp_threshold(params: Parameters, threshold: int) -> Parameters:
    """``params`` with KP = P(KSS >= threshold), threshold 7 or 8 (reference §2.6 [C]).

    The intercepts come from the Ingre 2014 cut-points K_6 = -4.30 / K_7 = -3.05 rewritten
    with X = (9.68 - K)/0.46: -8.305 (KSS >= 7) and -9.555 (KSS >= 8, the default).
    """
    intercepts = {7: -8.305, 8: -9.555}
    if threshold not in intercepts:
        raise ValueError(f"KP threshold must be 7 or 8, got {threshold}")
    return replace(params, kp_intercept=intercepts[threshold])


#: Preset A, airline-calibrated (Ingre et al. 2014 model 5c), the service default (ref §2.5).
DEFAULT = Parameters()

#: Preset B: the published TPM exactly as FIPS computes it (ref §2.5): FIPS KSS
#: coefficients, FIPS sleep-above-break form, no [C] modification of the core (no
#: short-sleep inertia scaling). Preset-B scale coefficients of ref §2.6.
TPM_DEFAULT = replace(
    DEFAULT,
    name="tpm_default",
    sleep_above_break="fips",
    inertia_short_sleep_scaling=False,
    kss_intercept=10.6,  # [KSS] FIPS TPM_make_pvec default [P]
    kss_slope=-0.6,  # [KSS/TPM] FIPS TPM_make_pvec default [P]
    vd_slope=6.6,  # [%/KSS] preset-B cross-walk, ref §2.6 [D]
    vd_knee=3.0,  # [KSS] ref §2.6 [D]
    pmr_slope=3.2,  # [%/KSS] ref §2.6 [D]
    pmr_knee=2.85,  # [KSS] ref §2.6 [D]
)

#: Preset A with the exponential (30 %/day, symmetric) jet-lag adaptation of Ingre et al.
#: 2014 (ref §3), for sensitivity comparisons only.
INGRE2014_EXP = replace(DEFAULT, name="ingre2014_exp", phase_model="exponential")

#: The Unified Model of Performance (Rajdev et al. 2013; Ramakrishnan et al. 2016) on preset
#: A's sleep and body clock: X is the UMP's PVT lapses S + κ·C (model/unified.py) and the
#: KSS is the inverse of the lapses cross-walk of ref §2.6 (PMR = 1 + 4.2·(K - 3.75) with 100
#: stimuli per 10-min PVT, so K = 3.75 + (lapses - 1)/4.2), so every other scale follows from
#: it as under preset A [D] (docs/model.md).
UNIFIED = replace(
    DEFAULT,
    name="unified",
    alertness_model="unified",
    kss_intercept=DEFAULT.pmr_knee - DEFAULT.pmr_floor / DEFAULT.pmr_slope,  # [KSS] 3.5119 [D]
    kss_slope=1.0 / DEFAULT.pmr_slope,  # [KSS/lapse] 0.2381, ref §2.6 cross-walk inverted [D]
)

#: Named presets, selectable in the CLI and the service configuration (ref §2.5).
PRESETS: dict[str, Parameters] = {
    "ingre2014_5c": DEFAULT,
    "tpm_default": TPM_DEFAULT,
    "ingre2014_exp": INGRE2014_EXP,
    "unified": UNIFIED,
}
