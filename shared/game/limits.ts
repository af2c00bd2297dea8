/** Bounds of a game's avatar options (the move message's speed bound follows the fastest). */
export const AVATAR_LIMITS = Object.freeze({ minSize: 0.2, maxSize: 4, maxSpeed: 20, maxJump: 20 });
