//! Fluid models: a DDE integrator for the papers' delay-differential equations (fixed delays,
//! discontinuous right-hand sides, queue floors, batched parameter grids) and the models themselves.
