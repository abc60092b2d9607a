from gitrefocus.entry import main

raise SystemExit(main())
