"""Modelling: a grid's cells grouped into curves (curves: x = N closed, λ open) and each curve's models (models:
asymptotic bounds, USL, knee, SLO capacity, the M/M/c//N prediction), with the formulas they fit and predict with
(usl, mmcn)."""
