from gitrefocus.cli import main

raise SystemExit(main())
