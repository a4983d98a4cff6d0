using System.Runtime.CompilerServices;

// The C# tests feed frames to a client directly (an older epoch's lobby frame, which a node sends only
// after a failover).
[assembly: InternalsVisibleTo("foyer-client-tests")]
