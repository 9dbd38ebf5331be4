/* luztar C API: drivetrains with freeplay and dry friction, simulated exactly,
 * stepped from a host loop (C programs, Simulink S-functions, FMU wrappers).
 *
 *   luztar_model* model;      luztar_simulator* sim;
 *   if (luztar_model_load("steering.yaml", &model) != LUZTAR_OK) fail(luztar_last_error());
 *   luztar_simulator_new(model, &sim);              // many simulators may share one model
 *   int torque = luztar_input(sim, "driver_torque"); // names resolved once (-1: unknown)
 *   int angle  = luztar_output(sim, "wheel.angle");
 *   each step: luztar_set_input(sim, torque, u);     // held until set again
 *              if (luztar_advance_to(sim, t) != LUZTAR_OK) fault(luztar_last_error());
 *              luztar_value(sim, angle, &y);
 *   luztar_simulator_free(sim); luztar_model_free(model);  // in either order
 *
 * Every function returns a luztar_status; on failure luztar_last_error() (per
 * thread) says why. Units are SI: rad, rad/s, rad/s^2, N m, W, J, s. Outputs
 * are named by signal path (README, "Signal paths"):
 * "bodies.<body>.angle|velocity|acceleration|drive_torque",
 * "elements.<element>.torque|state|relative_angle|relative_velocity|power|dissipated",
 * "inputs.<input>", "blocks.<block>",
 * "energy.input_work|kinetic|elastic|dissipated", or by the short names
 * "<body>.<quantity>", "<element>.<quantity>", an input's or a block's name.
 * Nothing is printed; no function throws.
 */
#ifndef LUZTAR_H
#define LUZTAR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LUZTAR_C_BUILD)
#define LUZTAR_API __attribute__((visibility("default")))
#else
#define LUZTAR_API
#endif

typedef enum luztar_status {
  LUZTAR_OK = 0,              /* done; advance_to reached its time */
  LUZTAR_EVENT_LIMIT = 1,     /* advance_to stopped early: more events than simulation.max_events since
                                 t_start; the simulator stays stopped at that event (this status, message
                                 and time again, no event more) until luztar_snapshot_restore of an
                                 earlier snapshot (a snapshot may be taken there) */
  LUZTAR_EVENT_STORM = 2,     /* advance_to stopped early: events accumulate (simulation.event_storm); the
                                 simulator stays stopped there as after LUZTAR_EVENT_LIMIT */
  LUZTAR_SOLVER_FAILURE = 3,  /* advance_to stopped early: the integrator or another stage of the step
                                 failed (e.g. a control block's LCP); the simulator stays stopped
                                 (this status again) until luztar_snapshot_restore */
  LUZTAR_BAD_MODEL = -1,      /* the model file or text breaks a rule (message: file:line:col: field: ...) */
  LUZTAR_BAD_ARGUMENT = -2,   /* null pointer, unknown id, value not finite or out of the input's bounds,
                                 time not finite, backwards or past simulation.t_end */
  LUZTAR_INTERNAL = -3        /* anything else (out of memory, ...) */
} luztar_status;

typedef struct luztar_model luztar_model;        /* read-only once loaded; share it freely */
typedef struct luztar_simulator luztar_simulator;
typedef struct luztar_snapshot luztar_snapshot;

typedef struct luztar_stats {
  long steps, rhs_evals, jac_evals, root_evals, events, reinits;
} luztar_stats;

LUZTAR_API const char* luztar_version(void);
/* Why the last failing call on this thread failed ("" if none). */
LUZTAR_API const char* luztar_last_error(void);

LUZTAR_API luztar_status luztar_model_load(const char* path, luztar_model** out);
LUZTAR_API luztar_status luztar_model_parse(const char* yaml_text, luztar_model** out);
LUZTAR_API void luztar_model_free(luztar_model* model);

/* The simulator starts at the model's simulation.t_start with its settings.
 * It keeps the model alive: luztar_model_free may come before luztar_simulator_free. */
LUZTAR_API luztar_status luztar_simulator_new(const luztar_model* model, luztar_simulator** out);
LUZTAR_API void luztar_simulator_free(luztar_simulator* sim);

/* Ids of named inputs and outputs (>= 0), or -1 (see luztar_last_error). Asking
 * again for an output (by any name of it) gives the same id. */
LUZTAR_API int luztar_input(luztar_simulator* sim, const char* name);
LUZTAR_API int luztar_output(luztar_simulator* sim, const char* name);

LUZTAR_API luztar_status luztar_set_input(luztar_simulator* sim, int input, double value);
/* Integrates to time t, handling every event on the way. t must be finite and
 * within [luztar_time(sim), simulation.t_end], else LUZTAR_BAD_ARGUMENT (the
 * simulator is unchanged). */
LUZTAR_API luztar_status luztar_advance_to(luztar_simulator* sim, double t);
LUZTAR_API luztar_status luztar_value(luztar_simulator* sim, int output, double* value);
/* The simulator's time [s]; NaN for a null sim. */
LUZTAR_API double luztar_time(const luztar_simulator* sim);
LUZTAR_API luztar_status luztar_get_stats(const luztar_simulator* sim, luztar_stats* out);

/* Rollback: the state now (taking it restarts the integrator, as an event
 * does); restoring it repeats the continued run bit for bit. */
LUZTAR_API luztar_status luztar_snapshot_take(luztar_simulator* sim, luztar_snapshot** out);
LUZTAR_API luztar_status luztar_snapshot_restore(luztar_simulator* sim, const luztar_snapshot* snapshot);
LUZTAR_API void luztar_snapshot_free(luztar_snapshot* snapshot);

#ifdef __cplusplus
}
#endif

#endif /* LUZTAR_H */
