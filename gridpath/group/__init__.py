"""Group move orders: collision-free timed paths for many units on a grid (multi-agent
path finding, LaCAM* over PIBT), goal assignment and validation of group plans."""
