# Sourced by the benchmark scripts: free_port prints a free loopback port whose successor
# is free too (the lws test server opens a second vhost there).
free_port() {
  local candidate
  for _ in $(seq 1 50); do
    candidate=$(( 20000 + RANDOM % 20000 ))
    if ! ss -Htln "sport = :$candidate" | grep -q . && ! ss -Htln "sport = :$((candidate + 1))" | grep -q .; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}
