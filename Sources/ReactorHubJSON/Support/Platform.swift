// `Double.rounded` and `Int(exactly: Double)` call libm's `trunc`, `rint` and friends.
// Nothing else in this module needs the C library, and a module that imports nothing
// does not link libm on Linux, so this import only brings the library to the link line.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
