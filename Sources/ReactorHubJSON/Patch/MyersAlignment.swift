/// Eugene Myers' O((N+M)·D) shortest edit script ("An O(ND) Difference Algorithm and Its
/// Variations", 1986), greedy forward pass with a bounded number of edits.
enum MyersAlignment {
    /// The matched pairs (old position, new position) of a longest common subsequence, in
    /// increasing order, or `nil` when more than `maximumEdits` insertions and deletions
    /// are needed.
    ///
    /// Keeps the frontier of every round for the backtrack: (D+1)² integers.
    static func matches(
        oldCount: Int,
        newCount: Int,
        maximumEdits: Int,
        equal: (Int, Int) -> Bool
    ) -> [(Int, Int)]? {
        let limit = min(maximumEdits, oldCount + newCount)
        let center = limit + 1
        var frontier = [Int](repeating: 0, count: 2 * limit + 3)
        // Round d's frontier for diagonals -d...d, stored at trace[d*d + (k + d)].
        var trace: [Int] = []

        for edits in 0...limit {
            for diagonal in stride(from: -edits, through: edits, by: 2) {
                var x: Int
                if diagonal == -edits || (diagonal != edits && frontier[center + diagonal - 1] < frontier[center + diagonal + 1]) {
                    x = frontier[center + diagonal + 1]
                } else {
                    x = frontier[center + diagonal - 1] + 1
                }
                var y = x - diagonal
                while x < oldCount, y < newCount, equal(x, y) {
                    x += 1
                    y += 1
                }
                frontier[center + diagonal] = x
            }
            for diagonal in -edits...edits {
                trace.append(frontier[center + diagonal])
            }
            let endDiagonal = oldCount - newCount
            if abs(endDiagonal) <= edits, (endDiagonal + edits) % 2 == 0, frontier[center + endDiagonal] >= oldCount {
                return backtrack(trace: trace, edits: edits, oldCount: oldCount, newCount: newCount)
            }
        }
        return nil
    }

    private static func backtrack(trace: [Int], edits: Int, oldCount: Int, newCount: Int) -> [(Int, Int)] {
        func reach(_ round: Int, _ diagonal: Int) -> Int {
            trace[round * round + diagonal + round]
        }
        var matches: [(Int, Int)] = []
        var x = oldCount
        var y = newCount
        for round in stride(from: edits, to: 0, by: -1) {
            let diagonal = x - y
            let cameDown = diagonal == -round
                || (diagonal != round && reach(round - 1, diagonal - 1) < reach(round - 1, diagonal + 1))
            let previousDiagonal = cameDown ? diagonal + 1 : diagonal - 1
            let previousX = reach(round - 1, previousDiagonal)
            let previousY = previousX - previousDiagonal
            // After the edit: one step down (an insertion) or right (a deletion), then a snake.
            let snakeStartX = cameDown ? previousX : previousX + 1
            while x > snakeStartX {
                x -= 1
                y -= 1
                matches.append((x, y))
            }
            x = previousX
            y = previousY
        }
        while x > 0, y > 0 {
            x -= 1
            y -= 1
            matches.append((x, y))
        }
        return matches.reversed()
    }
}
