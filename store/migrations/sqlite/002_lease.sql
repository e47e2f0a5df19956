-- A request's lease (coord/lease.go): how long it stays up while its
-- publisher (a hook) has no wait open (0: no lease), and until when it
-- stands at the latest as its publisher's waits left it (unix
-- nanoseconds; any hub withdraws it after that).
ALTER TABLE requests ADD COLUMN lease_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE requests ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
